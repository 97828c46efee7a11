package capture

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// An entry's JSON is at most six times its text plus 512 bytes, whatever
// the text: the bound a reader skips exact measuring under.
func TestTextBytesBoundTheJSON(t *testing.T) {
	for _, text := range []string{"plain text", "<&>", "\x01\x1f", "\xff\xfe", "\u2028", `"\`} {
		long := func(n int) string { return strings.Repeat(text, n/len(text)) }
		ts := Time{Time: time.Date(2026, 11, 28, 4, 0, 0, 123e6, time.UTC)}
		yes := true
		headers := map[string]string{}
		for i := range MaxHeaders {
			headers[long(100)+string(rune('a'+i%26))+string(rune('a'+i/26))] = long(500)
		}
		args := make([]string, MaxArgs)
		for i := range args {
			args[i] = long(MaxArg)
		}
		for _, e := range []interface{ TextBytes() int }{
			&LogEntry{TS: ts, Level: "error", Kind: "exception", Message: long(MaxMessage), Args: args, Stack: long(MaxStack),
				Source: long(MaxURL), TabID: math.MaxInt32, Page: long(MaxURL), Screenshot: long(100), Doc: long(40), Seq: math.MaxInt64},
			&NetworkEntry{TS: ts, Method: "OPTIONS", URL: long(MaxURL), Status: 599, DurationMS: 1234567.891, Type: "fetch",
				Size: math.MaxInt64, Failed: true, Aborted: true, Error: long(200), TabID: math.MaxInt32, Page: long(MaxURL), Doc: long(40), Seq: math.MaxInt64},
			&NetworkBody{TS: ts, Method: "OPTIONS", URL: long(MaxURL), Status: 599, DurationMS: 1234567.891, ContentType: long(100),
				RequestBody: long(MaxRequestBody), ResponseBody: long(MaxResponseBody), RequestHeaders: headers, ResponseHeaders: headers,
				Truncated: true, HasAuthHeader: &yes, TabID: math.MaxInt32, Page: long(MaxURL), Doc: long(40), Seq: math.MaxInt64},
			&WSEvent{TS: ts, Event: "message", ID: long(40), URL: long(MaxURL), Direction: "incoming", Data: long(MaxWSData),
				Size: math.MaxInt64, Truncated: true, Code: 4999, Reason: long(123), TabID: math.MaxInt32, Page: long(MaxURL), Doc: long(40), Seq: math.MaxInt64},
			&Action{TS: ts, Type: "navigation", Selector: long(MaxText), Text: long(MaxText), Value: long(MaxText), InputType: "password",
				URL: long(MaxURL), TabID: math.MaxInt32, Page: long(MaxURL), Doc: long(40), Seq: math.MaxInt64},
			&NetworkEntry{}, &Action{}, &LogEntry{}, &WSEvent{}, &NetworkBody{},
		} {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if bound := 6*e.TextBytes() + 512; len(b) > bound {
				t.Errorf("%T of %q: %d bytes of JSON, over the bound %d", e, text, len(b), bound)
			}
		}
	}
}
