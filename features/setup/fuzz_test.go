package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzEditJSON: any file that parses takes our entry, which then reads
// back, and taking it out again gives the same data back (an emptied
// server table aside). editJSON itself refuses an edit that would touch
// anything else, so any such slip shows up as an error here.
func FuzzEditJSON(f *testing.F) {
	for _, dir := range []string{"claude-code", "cursor", "vscode", "gemini", "zed", "windsurf"} {
		files, _ := filepath.Glob(fixtures + dir + "/*.json")
		for _, p := range files {
			b, _ := os.ReadFile(p)
			f.Add(b)
		}
	}
	f.Add([]byte(`{"mcpServers":{"a":1} // x
}`))
	e := entry{Command: "/opt/gasoline", Args: []string{"--mcp"}}
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, err := readJSON(src, false, "mcpServers"); err != nil {
			return
		}
		if cur, _ := readJSON(src, false, "mcpServers"); cur != nil {
			return // remove would take out an entry the input already had
		}
		added, err := editJSON(src, false, "mcpServers", &e)
		if err != nil {
			t.Fatalf("add to a valid file: %v\n%s", err, src)
		}
		got, err := readJSON(added, false, "mcpServers")
		if err != nil || got == nil || got.Command != e.Command {
			t.Fatalf("added entry reads back as %+v, %v\n%s", got, err, added)
		}
		back, err := editJSON(added, false, "mcpServers", nil)
		if err != nil {
			t.Fatalf("remove: %v\n%s", err, added)
		}
		want, _ := decodeJSON(src)
		if m, ok := want["mcpServers"].(map[string]any); ok && len(m) == 0 {
			delete(want, "mcpServers")
		}
		got2, err := decodeJSON(back)
		if m, ok := got2["mcpServers"].(map[string]any); ok && len(m) == 0 {
			delete(got2, "mcpServers")
		}
		if err != nil || !jsonEqual(want, got2) {
			t.Fatalf("round trip changed the data (%v)\nin:  %q\nadd: %q\nout: %q", err, src, added, back)
		}
	})
}

// FuzzEditTOML is FuzzEditJSON for Codex's TOML.
func FuzzEditTOML(f *testing.F) {
	files, _ := filepath.Glob(fixtures + "codex/*.toml")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte("a = 1 # no newline at the end"))
	f.Add([]byte("[mcp_servers]\nx = { command = \"x\" }\n"))
	e := entry{Command: "/opt/gasoline", Args: []string{"--mcp"}}
	f.Fuzz(func(t *testing.T, src []byte) {
		if cur, err := readTOML(src, "mcp_servers"); err != nil || cur != nil {
			return
		}
		added, err := editTOML(src, "mcp_servers", &e)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%v\n%q", err, src)
			}
			return // e.g. mcp_servers written inline: refused, as it should be
		}
		got, err := readTOML(added, "mcp_servers")
		if err != nil || got == nil || got.Command != e.Command {
			t.Fatalf("added entry reads back as %+v, %v\n%s", got, err, added)
		}
		back, err := editTOML(added, "mcp_servers", nil)
		if err != nil {
			t.Fatalf("remove: %v\n%s", err, added)
		}
		want, _ := decodeTOML(src)
		got2, err := decodeTOML(back)
		if err != nil || !jsonEqual(want, got2) {
			t.Fatalf("round trip changed the data (%v)\nin:  %q\nadd: %q\nout: %q", err, src, added, back)
		}
	})
}
