package history

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/pointing"
)

func TestPointedKeptForTheNextOwner(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := LoadPointed(dir, pointing.New(0, nil)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("from an empty directory: %v", err)
	}
	b := pointing.New(0, nil)
	if _, err := b.Add(pointing.KindNetwork, json.RawMessage(`{"url":"http://app.test/api","status":500}`), "POST /api → 500", "why?"); err != nil {
		t.Fatal(err)
	}
	b.Unread("s1", "cursor")
	if err := SavePointed(dir, b); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, PointedFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v %v", PointedFile, fi, err)
	}
	next := pointing.New(0, nil)
	if n, skipped, err := LoadPointed(dir, next); n != 1 || skipped != 0 || err != nil {
		t.Fatalf("loaded %d, skipped %d: %v", n, skipped, err)
	}
	got, _ := next.List("", "")
	if got[0].Summary != "POST /api → 500" || got[0].Note != "why?" || strings.Join(got[0].ReadBy, ",") != "cursor" ||
		string(got[0].Entry) != `{"url":"http://app.test/api","status":500}` {
		t.Fatalf("loaded %+v", got[0])
	}
}

func TestPointedFileThatIsNotABoard(t *testing.T) {
	for name, body := range map[string]string{
		"garbage":  "{not json",
		"too long": `{"entries":[],"pad":"` + strings.Repeat("x", pointing.MaxKept) + `"}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, PointedFile), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		b := pointing.New(0, nil)
		if n, _, err := LoadPointed(dir, b); err == nil || n != 0 {
			t.Errorf("%s: loaded %d, %v", name, n, err)
		}
		if list, _ := b.List("", ""); len(list) != 0 {
			t.Errorf("%s: the board holds %v", name, list)
		}
	}
}
