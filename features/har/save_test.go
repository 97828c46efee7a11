package har

import (
	"path/filepath"
	"testing"
	"time"
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
