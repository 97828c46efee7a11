package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostile is n bytes of what encoding/json escapes most: control
// characters, quotes, HTML characters, line separators and invalid UTF-8.
func hostile(n int, tail string) string {
	unit := "\x01\"<\u2028\xff\\&>\n"
	return strings.Repeat(unit, n/len(unit)) + tail
}

// Every value of a line is capped, whatever it holds: the line stays under
// MaxLine, and a capped value keeps its full length and a hash, so two
// values that differ only past the cap still give two different lines.
func TestEveryValueCapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := Open(path, nil)
	defer l.Close()
	big := func(tail string) Event {
		v := hostile(1<<20, tail)
		return Event{Event: v, Setting: v, From: map[string]any{"k": v}, To: v, Reason: v, Source: v, Agent: v,
			Action: v, Selector: v, Name: v, SHA256: v, Script: v, Result: v, Error: v, LatencyMS: 1 << 40, Port: 65535, PID: 1 << 30}
	}
	for _, tail := range []string{"a", "b"} {
		if err := l.Write(big(tail)); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := os.ReadFile(path)
	got := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(got) != 2 || got[0] == got[1] {
		t.Fatalf("%d lines; distinct: %v", len(got), len(got) == 2 && got[0] != got[1])
	}
	for _, line := range got {
		if len(line) > MaxLine {
			t.Fatalf("a line of %d bytes, cap %d", len(line), MaxLine)
		}
		var e Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("…[%d bytes, sha256:", len(hostile(1<<20, "a"))); !strings.Contains(e.Selector, want) || !strings.HasPrefix(e.Selector, "\x01\"<") {
			t.Fatalf("selector kept as %q", e.Selector)
		}
	}
	t.Logf("a line of 15 values of 1 MB: %d bytes", len(got[0]))
}

func TestCapKeepsShortValuesAndWholeCharacters(t *testing.T) {
	if s := strings.Repeat("é", MaxValue/2); Cap(s) != s {
		t.Fatal("a value that fits was changed")
	}
	s := Cap(strings.Repeat("é", MaxValue))
	head, _, _ := strings.Cut(s, "…[")
	if len(head) != MaxValue || !strings.HasSuffix(s, "]") || !strings.Contains(s, "400 bytes") {
		t.Fatalf("capped to %q", s)
	}
}

// A flood of refused pilot actions with huge selectors cannot push the
// human's lines out: the log keeps its size bound, the human's line is kept
// in its own file, and a dashboard that starts tailing afterwards is shown
// it before the flood's last lines.
func TestFloodKeepsHumanLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	l := Open(path, nil, WithMaxSize(50_000))
	l.Write(Event{Event: "pilot_blocked", Source: "human", Agent: "human"})
	sel := strings.Repeat("div > ", 100_000)
	for range 1000 {
		l.Write(Event{Event: "pilot_action", Action: "highlight", Selector: sel, Source: "ai", Agent: "x", Result: "error", Error: "ai_web_pilot_disabled"})
	}
	l.Close()
	var total int64
	for _, f := range []string{path, path + ".1", path + ".2", path + ".3"} {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		total += st.Size()
	}
	if total > 4*50_000 {
		t.Fatalf("the log holds %d bytes", total)
	}
	if _, err := os.Stat(path + ".4"); err == nil {
		t.Fatal("more than three rotated files")
	}
	kept, err := os.ReadFile(HumanPath(path))
	if err != nil || strings.Count(string(kept), "\n") != 1 || !strings.Contains(string(kept), `"event":"pilot_blocked"`) {
		t.Fatalf("the human's file: %q, %v", kept, err)
	}
	if st, _ := os.Stat(HumanPath(path)); st.Mode().Perm() != 0o600 {
		t.Fatalf("the human's file is %v", st.Mode().Perm())
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan []Line, 1)
	go Tail(ctx, path, func(ls []Line) {
		select {
		case first <- ls:
		default:
		}
	})
	select {
	case ls := <-first:
		if len(ls) < 2 || ls[0].Event.Event != "pilot_blocked" || ls[1].Event.Event != "pilot_action" {
			t.Fatalf("the tail starts with %d lines, first %q", len(ls), ls[0].Event.Event)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no backlog")
	}
}

// A human line still in the log's backlog is shown once.
func TestKeptLineShownOnce(t *testing.T) {
	got := withKept([]string{"h1", "h2"}, []string{"a", "h2", "b"})
	if strings.Join(got, ",") != "h1,a,h2,b" {
		t.Fatal(got)
	}
}
