package capture

import (
	"encoding/json"
	"strings"
	"testing"
)

// Free text is scrubbed on the way into the store: console messages and
// their arguments, stacks, network errors, socket close reasons, action
// values and texts, page titles, and credentials in a URL's query.
func TestIngestScrubsFreeText(t *testing.T) {
	key := "gh" + "p_" + "0123456789abcdefghijklmnopqrstuvwxyz"
	s := NewStore()
	s.AddLogs([]LogEntry{{Level: "error", Message: "deploy using " + key, Args: []string{`{"password":"F1-fake-pass"}`, "then " + key},
		Stack: "Error: x\n    at f (https://app.test/a.js:1:2) " + key}})
	s.AddNetwork([]NetworkEntry{{Method: "GET", URL: "https://api.test/x?q=" + key, Error: "failed for " + key}})
	s.AddWSEvents([]WSEvent{{Event: "close", ID: "w", Reason: "revoked " + key}})
	s.AddActions([]Action{{Type: "input", Selector: "#note", Value: "my key " + key}, {Type: "click", Selector: "b", Text: "copy " + key}})
	s.SetPage(Page{TabID: 1, URL: "https://app.test/", Title: "Token " + key})
	p, _ := s.Page()
	all, _ := json.Marshal([]any{s.Logs(Query{}), s.Errors(Query{}), s.Network(Query{}), s.WSEvents(Query{}), s.Actions(Query{}), p})
	if strings.Contains(string(all), key[4:]) || strings.Contains(string(all), "F1-fake-pass") {
		t.Errorf("a secret was stored: %s", all)
	}
	if n := strings.Count(string(all), "ghp_[redacted]"); n < 9 {
		t.Errorf("%d marks, want one per place: %s", n, all)
	}
}
