package har

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// The HAR directory keeps only the newest archives.
func TestSaveKeepsNewest(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)
	var last string
	for i := range Keep + 3 {
		p, err := Save(dir, []byte{'0' + byte(i%10)}, at.Add(time.Duration(i)*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		last = p
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.har"))
	if len(files) != Keep || files[len(files)-1] != last {
		t.Fatalf("%d files, newest %v, want %d ending %s", len(files), files, Keep, last)
	}
}

// A small archive is returned inline, and kept when there is a directory;
// a big one only goes to the file, and with no directory is an error.
func TestPlace(t *testing.T) {
	at := time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)
	small, big := make([]byte, Inline), make([]byte, Inline+1)
	dir := t.TempDir()
	for _, c := range []struct {
		name         string
		dir          string
		archive      []byte
		file, inline bool
		wantErr      bool
	}{
		{"small, no dir", "", small, false, true, false},
		{"small, dir", dir, small, true, true, false},
		{"big, dir", dir, big, true, false, false},
		{"big, no dir", "", big, false, false, true},
	} {
		path, inline, err := Place(c.dir, c.archive, at)
		if (err != nil) != c.wantErr || (path != "") != c.file || inline != c.inline {
			t.Errorf("%s: path %q inline %v err %v", c.name, path, inline, err)
		}
		if c.wantErr && problem.From(err).Code != problem.Internal {
			t.Errorf("%s: %v is not an internal error", c.name, err)
		}
	}
}
