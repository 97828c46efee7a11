package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// A read of the largest entries is cut at maxAnswerBytes: the newest come
// first, the rest are counted in more and the answer says why; a read under
// the bound is whole and says nothing of a cut.
func TestBufferReadIsCutAtItsBound(t *testing.T) {
	s := New(Config{Version: "test"})
	c := mcpClient(t, s)
	logs := make([]capture.LogEntry, capture.MaxLimit)
	args := make([]string, capture.MaxArgs)
	for i := range args {
		args[i] = strings.Repeat("a", capture.MaxArg-1)
	}
	now := time.Now()
	for i := range logs {
		logs[i] = capture.LogEntry{TS: capture.Time{Time: now.Add(time.Duration(i) * time.Millisecond)}, Level: "error",
			Message: fmt.Sprintf("%d %s", i, strings.Repeat("m", capture.MaxMessage-8)), Stack: strings.Repeat("s", capture.MaxStack-1),
			Args: args, TabID: 3, Page: "http://app.test/"}
	}
	if n, rej := s.store.AddLogs(logs); n != len(logs) {
		t.Fatalf("stored %d: %v", n, rej)
	}

	out, isErr := callTool(t, c, "observe", map[string]any{"what": "logs", "limit": capture.MaxLimit})
	b, _ := json.Marshal(out)
	count, more := out["count"].(float64), out["more"].(float64)
	if isErr || count+more != float64(capture.MaxLimit) || count < 10 || out["cut"] != answerCut {
		t.Fatalf("the largest read: count %v more %v cut %v (error %v)", count, more, out["cut"], isErr)
	}
	if len(b) > maxAnswerBytes+4<<10 {
		t.Fatalf("the answer is %d bytes, over the bound %d", len(b), maxAnswerBytes)
	}
	if first := out["entries"].([]any)[0].(map[string]any)["message"].(string); !strings.HasPrefix(first, fmt.Sprint(capture.MaxLimit-1, " ")) {
		t.Fatalf("the first entry is not the newest: %.20s", first)
	}

	small, _ := callTool(t, c, "observe", map[string]any{"what": "logs", "limit": 5})
	if small["count"] != float64(5) || small["more"] != float64(capture.MaxLimit-5) || small["cut"] != nil {
		t.Fatalf("a read under the bound: count %v more %v cut %v", small["count"], small["more"], small["cut"])
	}
}
