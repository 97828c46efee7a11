package capturectl

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// The README's table of capture settings is written by hand; this keeps it
// true to Settings, so a setting added or changed here fails until the
// README says so too.
func TestReadmeTableMatchesSettings(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| `") && strings.Count(line, "|") >= 4 {
			name := strings.Trim(strings.TrimSpace(strings.Split(line, "|")[1]), "`")
			if _, ok := setting(name); ok {
				rows++
			}
		}
	}
	if rows != len(Settings) {
		t.Errorf("README has %d capture-setting rows, want %d (one per setting)", rows, len(Settings))
	}
	for _, s := range Settings {
		want := fmt.Sprintf("| `%s` | `%s` | `%v` |", s.Name, strings.Join(s.Values, "`, `"), s.Default)
		if s.Bool { // the options page shows a switch
			want = fmt.Sprintf("| `%s` | on / off | %s |", s.Name, map[any]string{true: "on", false: "off"}[s.Default])
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("README lacks the row %q", want)
		}
	}
}
