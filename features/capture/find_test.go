package capture

import (
	"encoding/json"
	"testing"
	"time"
)

// A row that went through JSON (the dashboard's copy) finds the stored
// entry; a row that differs in a field that tells entries apart does not.
func TestFindReturnsTheStoresCopyOfARow(t *testing.T) {
	s := NewStore()
	at := Time{time.Date(2026, 11, 28, 9, 0, 0, 123456789, time.UTC)}
	s.AddLogs([]LogEntry{
		{TS: at, Level: "log", Message: "saved", TabID: 7},
		{TS: at, Level: "error", Message: "boom", TabID: 7, Stack: "at f (app.js:1:2)"},
	})
	s.AddNetwork([]NetworkEntry{{TS: at, Method: "POST", URL: "http://x/api", Status: 500, TabID: 7}})
	s.AddWSEvents([]WSEvent{{TS: at, Event: "message", ID: "c1", Direction: "incoming", URL: "ws://x", Data: "hi", TabID: 7}})
	s.AddActions([]Action{{TS: at, Type: "click", Selector: "#pay", URL: "http://x", TabID: 7}})

	viaJSON := func(v, into any) {
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatal(err)
		}
	}
	var log LogEntry
	viaJSON(LogEntry{TS: at, Level: "error", Message: "boom", TabID: 7}, &log)
	if e, ok := s.FindLog(log, true); !ok || e.Stack == "" {
		t.Fatalf("the error with its stack: %+v %v", e, ok)
	}
	if _, ok := s.FindLog(LogEntry{TS: at, Level: "error", Message: "boom!", TabID: 7}, true); ok {
		t.Fatal("another message found the error")
	}
	if _, ok := s.FindLog(LogEntry{TS: at, Level: "log", Message: "saved", TabID: 8}, false); ok {
		t.Fatal("another tab found the log")
	}
	var req NetworkEntry
	viaJSON(NetworkEntry{TS: at, Method: "POST", URL: "http://x/api"}, &req)
	if e, ok := s.FindNetwork(req); !ok || e.Status != 500 {
		t.Fatalf("the request: %+v %v", e, ok)
	}
	if _, ok := s.FindNetwork(NetworkEntry{TS: Time{at.Add(time.Millisecond)}, Method: "POST", URL: "http://x/api"}); ok {
		t.Fatal("a row a millisecond later found the request")
	}
	if e, ok := s.FindWSEvent(WSEvent{TS: at, Event: "message", ID: "c1", Direction: "incoming"}); !ok || e.Data != "hi" {
		t.Fatalf("the message: %+v %v", e, ok)
	}
	if _, ok := s.FindWSEvent(WSEvent{TS: at, Event: "message", ID: "c1", Direction: "outgoing"}); ok {
		t.Fatal("the other direction found the message")
	}
	if e, ok := s.FindAction(Action{TS: at, Type: "click", Selector: "#pay"}); !ok || e.URL != "http://x" {
		t.Fatalf("the action: %+v %v", e, ok)
	}
	if _, ok := s.FindAction(Action{TS: at, Type: "input", Selector: "#pay"}); ok {
		t.Fatal("another type found the action")
	}
}
