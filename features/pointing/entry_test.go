package pointing

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// Find answers the store's copy of the row's entry (a request with its
// bodies), never what the row says, and refuses a row it no longer holds,
// an unknown kind and a malformed row with stable codes.
func TestFindAnswersTheStoresCopy(t *testing.T) {
	st := capture.NewStore()
	ts := capture.Time{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	st.AddLogs([]capture.LogEntry{{TS: ts, Level: "error", Message: "boom", Stack: "at f (a.js:1:2)"}})
	st.AddNetwork([]capture.NetworkEntry{{TS: ts, Method: "POST", URL: "https://x.test/api", Status: 500}})
	st.AddBodies([]capture.NetworkBody{{TS: ts, Method: "POST", URL: "https://x.test/api", Status: 500, ResponseBody: `{"err":1}`}})

	row, _ := json.Marshal(capture.LogEntry{TS: ts, Level: "error", Message: "boom", Stack: "forged"})
	b, summary, err := Find(st, KindError, row)
	if err != nil || summary != "error boom" || !strings.Contains(string(b), "a.js:1:2") || strings.Contains(string(b), "forged") {
		t.Fatalf("error: %s %q %v", b, summary, err)
	}
	row, _ = json.Marshal(capture.NetworkEntry{TS: ts, Method: "POST", URL: "https://x.test/api", Status: 500})
	b, summary, err = Find(st, KindNetwork, row)
	if err != nil || summary != "POST https://x.test/api → 500" || !strings.Contains(string(b), `"response_body":"{\"err\":1}"`) {
		t.Fatalf("network: %s %q %v", b, summary, err)
	}
	b, _, err = Find(st, KindAudit, json.RawMessage(`{"event":"pilot_blocked","action":"click"}`))
	if err != nil || !strings.Contains(string(b), "pilot_blocked") {
		t.Fatalf("audit: %s %v", b, err)
	}

	gone, _ := json.Marshal(capture.LogEntry{TS: ts, Level: "error", Message: "other"})
	for _, tc := range []struct {
		kind string
		row  json.RawMessage
		code problem.Code
	}{
		{KindError, gone, problem.NotFound},
		{KindConsole, row, problem.NotFound}, // the error is not a console entry of that level
		{"cookie", row, problem.InvalidParam},
		{KindAction, json.RawMessage(`[1]`), problem.InvalidParam},
		{KindAudit, json.RawMessage(`{"action":"x"}`), problem.InvalidParam},
		{KindNetwork, nil, problem.InvalidParam},
	} {
		if _, _, err := Find(st, tc.kind, tc.row); problem.From(err).Code != tc.code {
			t.Errorf("%s %s: %v, want %s", tc.kind, tc.row, err, tc.code)
		}
	}
}
