package capture

// TextBytes is the length of an entry's text fields: what its JSON grows
// with. Escaping makes a byte at most six in JSON, so 6×TextBytes plus
// room for the field names and numbers bounds the entry's JSON; a reader
// that must bound an answer measures exactly only past that.
func (e *LogEntry) TextBytes() int {
	return len(e.Level) + len(e.Kind) + len(e.Message) + ListBytes(e.Args) + len(e.Stack) + len(e.Source) +
		len(e.Page) + len(e.Screenshot) + len(e.Doc)
}

// TextBytes is the length of the entry's text fields (see LogEntry's).
func (e *NetworkEntry) TextBytes() int {
	return len(e.Method) + len(e.URL) + len(e.Type) + len(e.Error) + len(e.Page) + len(e.Doc)
}

// TextBytes is the length of the body's text fields (see LogEntry's).
func (b *NetworkBody) TextBytes() int {
	n := len(b.Method) + len(b.URL) + len(b.ContentType) + len(b.RequestBody) + len(b.ResponseBody) + len(b.Page) + len(b.Doc)
	for _, h := range []map[string]string{b.RequestHeaders, b.ResponseHeaders} {
		for k, v := range h {
			n += len(k) + len(v) + 6 // the quotes, colon and comma
		}
	}
	return n
}

// TextBytes is the length of the event's text fields (see LogEntry's).
func (e *WSEvent) TextBytes() int {
	return len(e.Event) + len(e.ID) + len(e.URL) + len(e.Direction) + len(e.Data) + len(e.Reason) + len(e.Messages) + len(e.Page) + len(e.Doc)
}

// TextBytes is the length of the action's text fields (see LogEntry's).
func (a *Action) TextBytes() int {
	return len(a.Type) + len(a.Selector) + len(a.Text) + len(a.Value) + len(a.InputType) + len(a.URL) + len(a.Page) + len(a.Doc) +
		len(a.Source) + len(a.Role) + len(a.Name) + a.Within.textBytes()
}

// ListBytes is the length of a list of strings' text: each string's bytes
// and its quotes and comma (see LogEntry's TextBytes).
func ListBytes(list []string) int {
	n := 0
	for _, s := range list {
		n += len(s) + 3 // the quotes and comma
	}
	return n
}

func (s *Scope) textBytes() int {
	if s == nil {
		return 0
	}
	return len(s.Role) + len(s.Name) + len(s.Text) + len(s.Selector)
}
