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

// The same for network entries and bodies (their headers in name order, as
// json/v2 writes them when deterministic).
func TestNetworkAppendJSONMatchesTheEncoder(t *testing.T) {
	opts := jsonv2.JoinOptions(jsontext.AllowInvalidUTF8(true), jsonv1.OmitEmptyWithLegacySemantics(true), jsonv2.Deterministic(true))
	yes, no := true, false
	var vals []any
	for _, e := range []NetworkEntry{
		{TS: ts(1), Method: "GET", URL: ""},
		{TS: ts(2), Method: "POST", URL: "https://a.test/x?q=\"é\"", Status: 201, DurationMS: 3.2, Type: "fetch", Size: 12345,
			Error: "network error", Failed: true, Aborted: true, TabID: 7, Page: "https://a.test/"},
		{TS: ts(3), Method: "GET", URL: "u", DurationMS: 1e-7, Size: -1, TabID: -2},
		{TS: ts(4), Method: "GET", URL: "u", DurationMS: 123456789.125},
		{TS: ts(5), Method: "GET", URL: "u", DurationMS: 2e21},
		{TS: ts(6), Method: "GET", URL: "u", DurationMS: 312.4, Timing: &Timing{DNS: 1.5, Connect: 2.25, TLS: 1e-7, Wait: 300.1, Download: 0.4}},
		{TS: ts(7), Method: "GET", URL: "u", Timing: &Timing{Wait: 812.3}, Failed: true},
		{TS: ts(8), Method: "GET", URL: "u", Timing: &Timing{}},
	} {
		vals = append(vals, e)
	}
	for _, e := range []NetworkBody{
		{TS: ts(1), Method: "GET", URL: "u"},
		{TS: ts(2), Method: "POST", URL: "https://a.test/login", Status: 200, DurationMS: 0.5, ContentType: "application/json",
			RequestBody: `{"password":"[redacted]"}`, ResponseBody: "bad \xff utf8 \u2028",
			RequestHeaders:  map[string]string{"content-type": "application/json", "accept": "*/*", "x-b": "\"q\""},
			ResponseHeaders: map[string]string{"date": "Wed"}, Truncated: true, HasAuthHeader: &yes, TabID: 3, Page: "https://a.test/"},
		{TS: ts(3), Method: "GET", URL: "u", HasAuthHeader: &no, RequestHeaders: map[string]string{}},
	} {
		vals = append(vals, e)
	}
	for _, v := range vals {
		want, err := jsonv2.Marshal(v, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.(interface{ AppendJSON([]byte) []byte }).AppendJSON(nil); string(got) != string(want) {
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
