package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Issue 10 #7: a value of the wrong type rejects its entry only, with its
// index and the reason; the rest of the batch is stored.
func TestIngestRejectsOnlyTheMistypedEntry(t *testing.T) {
	s, base := startServer(t)
	body := `{"entries":[
		{"level":"log","message":"keep-0"},
		{"level":"log","message":"bad-args","args":["ok",{"nested":true}]},
		{"level":"log","message":"keep-2"},
		{"level":"log","message":7},
		{"level":"shout","message":"bad-level"},
		{"ts":"yesterday","level":"log","message":"bad-ts"},
		{"level":"log","message":"keep-6"}
	]}`
	code, out := do(t, base, call{method: "POST", path: "/logs", body: body})
	if code != 200 || out["accepted"] != float64(3) {
		t.Fatalf("%d %v", code, out)
	}
	var got []string
	for _, r := range out["rejected"].([]any) {
		r := r.(map[string]any)
		got = append(got, fmt.Sprintf("%v %v", r["index"], r["error"]))
	}
	want := []string{"1 /args/1: want string", "3 /message: want string", "4 level", "5 /ts"}
	if len(got) != len(want) {
		t.Fatalf("rejected %q, want %d", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i][:2]) || !strings.Contains(got[i], want[i][2:]) {
			t.Errorf("rejection %d = %q, want %q", i, got[i], want[i])
		}
	}
	var kept []string
	for _, e := range s.Store().Logs(capture.Query{}).Entries {
		kept = append(kept, e.Message)
	}
	if strings.Join(kept, ",") != "keep-6,keep-2,keep-0" {
		t.Fatalf("stored %v", kept)
	}

	// The same on another endpoint, and a batch of only bad entries.
	code, out = do(t, base, call{method: "POST", path: "/network", body: `{"entries":[{"method":"GET","url":"u","status":"200"},{"method":"GET","url":"kept"}]}`})
	if code != 200 || out["accepted"] != float64(1) || !strings.Contains(mustJSON(out["rejected"]), `"index":0`) {
		t.Fatalf("network: %d %v", code, out)
	}
	code, out = do(t, base, call{method: "POST", path: "/actions", body: `{"actions":[1,"x"]}`})
	if code != 200 || out["accepted"] != float64(0) || len(out["rejected"].([]any)) != 2 {
		t.Fatalf("all bad: %d %v", code, out)
	}
}
