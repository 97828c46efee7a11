package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
)

// filterFields are the fields a filter names; a row without the field
// does not match a term on it.
var filterFields = []string{"status", "method", "level", "url", "type"}

// query is a parsed filter: every term and every word must match (AND).
// It is parsed once when typed and matched against each row.
type query struct {
	terms []term
	words []string // free text, lower case: the row's text, bodies, stacks
}

// term is one field test: status>=400, method:POST, url:/api.
type term struct {
	field, op string
	val       string // lower case
	num       int    // status's value
}

// empty says the query keeps every row.
func (q query) empty() bool { return len(q.terms) == 0 && len(q.words) == 0 }

// parseQuery reads a filter: space-separated terms, each a field test
// (status>=400, status<500, status=404, method:POST, level:error,
// url:/api, type:img) or free text; "quoted text" keeps its spaces. A word
// with a colon that names no field (TypeError:, http://…) is free text.
// The error says what is wrong, in the filter's own words.
func parseQuery(s string) (query, error) {
	var q query
	toks, err := tokens(s)
	if err != nil {
		return q, err
	}
	for _, tok := range toks {
		if tok.quoted {
			q.words = append(q.words, strings.ToLower(tok.s))
			continue
		}
		t, ok, err := parseTerm(tok.s)
		switch {
		case err != nil:
			return query{}, err
		case ok:
			q.terms = append(q.terms, t)
		default:
			q.words = append(q.words, strings.ToLower(tok.s))
		}
	}
	return q, nil
}

type token struct {
	s      string
	quoted bool
}

// tokens splits s at spaces, keeping "quoted text" whole.
func tokens(s string) ([]token, error) {
	var out []token
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("a quote is not closed: %s", s)
			}
			if end > 0 {
				out = append(out, token{s: s[1 : end+1], quoted: true})
			}
			s = s[end+2:]
			continue
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		out = append(out, token{s: s[:end]})
		s = s[end:]
	}
}

// parseTerm reads one field test; ok is false for free text.
func parseTerm(tok string) (term, bool, error) {
	i := strings.IndexAny(tok, ":=<>")
	if i <= 0 {
		return term{}, false, nil
	}
	name := strings.ToLower(tok[:i])
	op := tok[i : i+1]
	if rest := tok[i+1:]; (op == "<" || op == ">") && strings.HasPrefix(rest, "=") {
		op += "="
	}
	val := tok[i+len(op):]
	known := false
	for _, f := range filterFields {
		known = known || f == name
	}
	if !known {
		if op == ":" || !isWord(name) {
			return term{}, false, nil // TypeError:, http://…, a=b in a message
		}
		return term{}, false, fmt.Errorf("no field %q: filter by %s", name, strings.Join(filterFields, ", "))
	}
	if val == "" {
		return term{}, false, fmt.Errorf("%s%s needs a value, as in %s", name, op, example(name))
	}
	t := term{field: name, op: op, val: strings.ToLower(val)}
	if name == "status" {
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return term{}, false, fmt.Errorf("status%s%s: a status is a number, as in status>=400", op, val)
		}
		t.num = n
		return t, true, nil
	}
	if op != ":" && op != "=" {
		return term{}, false, fmt.Errorf("%s%s: only status compares with < and >; %s takes : (contains) or = (is)", name, op, name)
	}
	return t, true, nil
}

func isWord(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func example(field string) string {
	return map[string]string{"status": "status>=400", "method": "method:POST", "level": "level:error",
		"url": "url:/api", "type": "type:img"}[field]
}

// match says whether a row passes the query. more, when set, is further
// text the row stands for (a request's bodies), read only for free text
// its line does not have.
func (q query) match(r row, more func(any) []string) bool {
	for _, t := range q.terms {
		v, ok := fieldOf(r.src, t.field)
		if !ok || !t.test(v) {
			return false
		}
	}
	var whole []string // read once, when the row's line lacks a word
	for _, w := range q.words {
		if containsFold(r.text, w) {
			continue
		}
		if whole == nil {
			whole = fullText(r.src, more)
		}
		found := false
		for _, s := range whole {
			if found = containsFold(s, w); found {
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// containsFold says whether s contains the lower-case word w, ignoring
// case, without copying s: a filter runs over every row of a flood.
func containsFold(s, w string) bool {
	if w == "" {
		return true
	}
	for i := 0; i+len(w) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(w)], w) {
			return true
		}
	}
	return false
}

func (t term) test(v string) bool {
	if t.field == "status" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return false
		}
		switch t.op {
		case ">":
			return n > t.num
		case ">=":
			return n >= t.num
		case "<":
			return n < t.num
		case "<=":
			return n <= t.num
		}
		return n == t.num
	}
	v = strings.ToLower(v)
	if t.op == "=" {
		return v == t.val
	}
	return strings.Contains(v, t.val)
}

// fieldOf is a row's value of a filter field; ok is false when the row
// has no such field (a console line has no status).
func fieldOf(src any, field string) (string, bool) {
	switch e := src.(type) {
	case capture.NetworkEntry:
		switch field {
		case "status":
			return strconv.Itoa(e.Status), true
		case "method":
			return e.Method, true
		case "url":
			return e.URL, true
		case "type":
			return e.Type + " " + netType(e), true // type:img finds the rows the column says img
		case "level":
			if e.Failed || e.Aborted || e.Status == 0 || e.Status >= 400 {
				return "error", true
			}
			return "info", true
		}
	case resourceEntry:
		// A page load's request, by what its row shows: the browser
		// loaded it with GET; its status is unknown ("-") when 0.
		switch field {
		case "status":
			return strconv.Itoa(e.Status), e.Status > 0
		case "method":
			return "GET", true
		case "url":
			return e.URL, true
		case "type":
			return kindOf(e.Resource), true
		case "level":
			if e.Status >= 400 {
				return "error", true
			}
			return "info", true
		}
	case capture.LogEntry:
		switch field {
		case "level":
			if e.Kind == "exception" || e.Kind == "rejection" {
				return "error " + e.Kind, true
			}
			return e.Level, true
		case "url":
			return e.Source + " " + e.Page, true
		case "type":
			return e.Kind, true
		}
	case capture.WSEvent:
		switch field {
		case "url":
			return e.URL, true
		case "type":
			return e.Event, true
		case "level":
			if e.Event == "error" {
				return "error", true
			}
			return "info", true
		}
	case capture.Action:
		switch field {
		case "url":
			return e.URL + " " + e.Page, true
		case "type":
			return e.Type, true
		}
	case navMark:
		switch field {
		case "url":
			return e.URL, true
		case "type":
			return "navigation", true
		}
	case audit.Line:
		switch field {
		case "type":
			return e.Event.Event, true
		case "level":
			if e.Event.Error != "" {
				return "error", true
			}
			return "info", true
		}
	case Setting:
		if field == "type" {
			return "setting", true
		}
	}
	return "", false
}

// fullText is everything a row stands for, for free text: the whole
// message, its arguments and stack, a request's headers and bodies.
func fullText(src any, more func(any) []string) []string {
	var out []string
	switch e := src.(type) {
	case capture.LogEntry:
		out = append(append(out, e.Message, e.Stack, e.Source, e.Page), e.Args...)
	case capture.NetworkEntry:
		out = append(out, e.URL, e.Error, e.Page)
	case resourceEntry:
		out = append(out, e.URL, e.Page)
	case capture.WSEvent:
		out = append(out, e.Data, e.URL, e.Reason)
	case capture.Action:
		out = append(out, e.Selector, e.Text, e.Value, e.URL)
	case audit.Line:
		out = append(out, e.Raw)
	case StreamedMsg:
		out = append(out, e.Message)
	case Setting:
		out = append(out, e.Name, e.Agent, show(e.Value))
	}
	if more != nil {
		out = append(out, more(src)...)
	}
	if out == nil {
		out = []string{}
	}
	return out
}
