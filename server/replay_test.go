package server

import (
	"testing"
)

// A replay under way is in the status the dashboard reads, with the step it
// reached; the human's x (with the token only) stops it and names it.
func TestHumanStopsAReplay(t *testing.T) {
	s, base := startServer(t)
	run := s.replays.start("r1", "agent-a", 12, 7)
	s.replays.at(run, 3)
	if got := s.Health().Replays; len(got) != 1 || got[0].ID != "r1" || got[0].Step != 3 || got[0].Steps != 7 || got[0].Agent != "agent-a" {
		t.Fatalf("health: %+v", got)
	}
	stop := call{method: "POST", path: "/api/replays/stop", body: `{}`}
	if code, _ := do(t, base, stop); code != 401 {
		t.Fatalf("without the token: %d", code)
	}
	select {
	case <-run.stop:
		t.Fatal("stopped without the token")
	default:
	}
	stop.header = asHuman(s)
	code, body := do(t, base, stop)
	if ids, _ := body["stopped"].([]any); code != 200 || len(ids) != 1 || ids[0] != "r1" {
		t.Fatalf("with the token: %d %v", code, body)
	}
	select {
	case <-run.stop:
	default:
		t.Fatal("the replay was not told to stop")
	}
	if got := s.Health().Replays; len(got) != 0 {
		t.Fatalf("still under way: %+v", got)
	}
	if code, body := do(t, base, stop); code != 200 || len(body["stopped"].([]any)) != 0 {
		t.Fatalf("none under way: %d %v", code, body)
	}
	s.replays.end("r1") // the replay's own end after the stop changes nothing
}
