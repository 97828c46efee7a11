package server

import (
	"bytes"
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"
)

// maxIDLen bounds the id an over-long request is answered with; a longer
// one is not read and the answer's id is null.
const maxIDLen = 1 << 10

// idScanner finds the top-level "id" of a JSON-RPC request fed to it in
// pieces, holding nothing but the id itself: an over-long line is answered
// for its id wherever in the line the id comes.
type idScanner struct {
	started, done bool
	depth         int
	inStr, esc    bool
	keyNext       bool // at depth 1, the next string is a key
	inKey         bool
	key           []byte // the key so far, at most len("id")+1 bytes
	isID          bool   // the key just read is "id"
	inVal         bool   // reading the id's value
	valStr        bool
	valEsc        bool
	val           []byte
	id            json.RawMessage
}

func (s *idScanner) feed(b []byte) {
	for _, c := range b {
		if s.done {
			return
		}
		s.step(c)
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *idScanner) step(c byte) {
	switch {
	case !s.started:
		if isSpace(c) {
			return
		}
		s.started, s.done = c == '{', c != '{'
		s.depth, s.keyNext = 1, true
	case s.inVal:
		s.stepValue(c)
	case s.inStr:
		switch {
		case s.esc:
			s.esc = false
			s.key = append(s.key, '\\') // an escaped key is never taken for "id"
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inStr = false
			if s.inKey {
				s.inKey = false
				s.isID = string(s.key) == "id"
			}
		case s.inKey && len(s.key) < 3:
			s.key = append(s.key, c)
		}
	default:
		switch c {
		case '"':
			s.inStr = true
			if s.depth == 1 && s.keyNext {
				s.inKey, s.keyNext, s.key = true, false, s.key[:0]
			}
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			s.done = s.depth == 0
		case ':':
			if s.depth == 1 && s.isID {
				s.inVal, s.isID = true, false
			}
		case ',':
			s.keyNext = s.depth == 1
			s.isID = false
		}
	}
}

// stepValue reads the id's value; the first "id" key decides, so the scan
// ends with it.
func (s *idScanner) stepValue(c byte) {
	if len(s.val) == 0 {
		if isSpace(c) {
			return
		}
		if c == '{' || c == '[' {
			s.done = true
			return
		}
	}
	if !s.valStr && len(s.val) > 0 && (c == ',' || c == '}' || isSpace(c)) {
		s.finish()
		return
	}
	s.val = append(s.val, c)
	if len(s.val) > maxIDLen {
		s.done = true
		return
	}
	switch {
	case !s.valStr:
		s.valStr = c == '"' && len(s.val) == 1
	case s.valEsc:
		s.valEsc = false
	case c == '\\':
		s.valEsc = true
	case c == '"':
		s.finish()
	}
}

func (s *idScanner) finish() {
	s.done = true
	if v := jsontext.Value(s.val); v.IsValid() && (v.Kind() == '"' || v.Kind() == '0') {
		s.id = json.RawMessage(bytes.Clone(s.val))
	}
}

// leadingID finds the top-level "id" of a JSON object from its first
// bytes only, or nil when they do not name it.
func leadingID(b []byte) json.RawMessage {
	var s idScanner
	s.feed(b)
	return s.id
}
