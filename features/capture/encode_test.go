package capture

import (
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// AppendJSON writes what json/v2 (legacy omitempty) writes, byte for byte.
func TestLogEntryAppendJSONMatchesTheEncoder(t *testing.T) {
	opts := jsonv2.JoinOptions(jsontext.AllowInvalidUTF8(true), jsonv1.OmitEmptyWithLegacySemantics(true))
	for _, e := range []LogEntry{
		{TS: ts(1), Level: "log", Message: ""},
		{TS: ts(2), Level: "error", Kind: "exception", Message: "a \"quoted\"\n<b>&\u2028 é", Args: []string{"x", "", "{\"a\":1}"},
			Stack: "at f (a.js:1:2)", Source: "https://a.test/a.js:1:2", TabID: 42, Page: "https://a.test/", Screenshot: "s.png"},
		{TS: ts(3), Level: "warn", Message: "bad \xff utf8", TabID: -1},
	} {
		want, err := jsonv2.Marshal(e, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("AppendJSON\n%s\nwant\n%s", got, want)
		}
	}
}

func BenchmarkLogEntryEncode(b *testing.B) {
	e := LogEntry{TS: ts(1), Level: "log", Message: "render list item 7 took 3ms", Args: []string{`{"id":42,"name":"Alice"}`},
		Source: "http://localhost:3000/static/js/main.js:120:14", TabID: 7, Page: "http://localhost:3000/dashboard"}
	opts := jsonv2.JoinOptions(jsontext.AllowInvalidUTF8(true), jsonv1.OmitEmptyWithLegacySemantics(true))
	b.Run("AppendJSON", func(b *testing.B) {
		buf := make([]byte, 0, 512)
		for b.Loop() {
			buf = e.AppendJSON(buf[:0])
		}
	})
	b.Run("jsonv2", func(b *testing.B) {
		var v any = e
		for b.Loop() {
			jsonv2.Marshal(v, opts)
		}
	})
}
