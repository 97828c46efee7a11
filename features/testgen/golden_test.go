package testgen

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

var update = flag.Bool("update", false, "rewrite testdata/sessions/*.golden.ts")

// recording is a recorded session as testdata/sessions/*.json holds it: what
// the capture buffers held, the DOM state, and the generate options.
type recording struct {
	Options struct {
		Name        string `json:"name"`
		BaseURL     string `json:"base_url"`
		MockAPI     bool   `json:"mock_api"`
		Screenshots bool   `json:"screenshots"`
		URLFilter   string `json:"url_filter"`
	} `json:"options"`
	Session struct {
		Actions []capture.Action       `json:"actions"`
		Network []capture.NetworkEntry `json:"network"`
		Bodies  []capture.NetworkBody  `json:"bodies"`
		DOM     *struct {
			URL      string          `json:"url"`
			Headings json.RawMessage `json:"headings"`
			Elements json.RawMessage `json:"elements"`
		} `json:"dom"`
	} `json:"session"`
}

func load(t testing.TB, path string) (Session, Options) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r recording
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	s := Session{Actions: r.Session.Actions, Network: r.Session.Network, Bodies: r.Session.Bodies}
	if d := r.Session.DOM; d != nil {
		s.DOM = &DOM{URL: d.URL}
		if len(d.Headings) > 0 {
			_ = json.Unmarshal(d.Headings, &s.DOM.Headings)
		}
		if len(d.Elements) > 0 {
			_ = json.Unmarshal(d.Elements, &s.DOM.Elements)
		}
	}
	o := r.Options
	return s, Options{Name: o.Name, BaseURL: o.BaseURL, MockAPI: o.MockAPI, Screenshots: o.Screenshots, URLFilter: o.URLFilter}
}

// Each recorded session generates exactly its golden test. Run with
// -update after a deliberate change, and read the diff.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/sessions/*.json")
	if len(files) == 0 {
		t.Fatal("no recorded sessions")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			s, o := load(t, f)
			res, err := Generate(s, o)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(f, ".json") + ".golden.ts"
			if *update {
				if err := os.WriteFile(golden, []byte(res.Script), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update)", err)
			}
			if res.Script != string(want) {
				t.Fatalf("%s differs from the generated test:\n%s", golden, res.Script)
			}
		})
	}
}
