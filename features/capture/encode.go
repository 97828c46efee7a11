package capture

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// AppendJSON appends e as JSON, as json/v2 with legacy omitempty encodes
// it (invalid UTF-8 becomes U+FFFD), a few times faster: console entries
// are what a flood is made of, and the history encodes each one before
// ingest answers.
func (e LogEntry) AppendJSON(b []byte) []byte {
	b = append(b, `{"ts":"`...)
	b = append(e.TS.UTC().AppendFormat(b, TimeLayout), '"')
	b = field(b, "level", e.Level, false)
	b = field(b, "kind", e.Kind, true)
	b = field(b, "message", e.Message, false)
	if len(e.Args) > 0 {
		b = append(b, `,"args":[`...)
		for i, a := range e.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b, _ = jsontext.AppendQuote(b, a)
		}
		b = append(b, ']')
	}
	b = field(b, "stack", e.Stack, true)
	b = field(b, "source", e.Source, true)
	if e.TabID != 0 {
		b = strconv.AppendInt(append(b, `,"tab":`...), int64(e.TabID), 10)
	}
	b = field(b, "page", e.Page, true)
	b = field(b, "screenshot", e.Screenshot, true)
	return append(b, '}')
}

// field appends ,"name":"v", unless v is empty and omitted when empty.
func field(b []byte, name, v string, omitEmpty bool) []byte {
	if omitEmpty && v == "" {
		return b
	}
	b = append(append(append(b, ',', '"'), name...), '"', ':')
	b, _ = jsontext.AppendQuote(b, v) // invalid UTF-8 is replaced, and said, not lost
	return b
}
