package screenshots

import (
	"os"
	"testing"
	"time"
)

func TestSaveKeepsNewestAndRejectsNonPNG(t *testing.T) {
	d := New(t.TempDir() + "/shots")
	png := append([]byte(nil), pngMagic...)
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var last string
	for i := range Keep + 5 {
		p, err := d.Save(t0.Add(time.Duration(i)*time.Second), 7, png)
		if err != nil {
			t.Fatal(err)
		}
		last = p
	}
	entries, _ := os.ReadDir(d.Path())
	if len(entries) != Keep {
		t.Fatalf("%d files, want %d", len(entries), Keep)
	}
	if entries[0].Name() != "error-20261122-100005.000-tab7.png" {
		t.Fatalf("oldest kept: %s", entries[0].Name())
	}
	if fi, err := os.Stat(last); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v", fi.Mode(), err) // the user's screen: readable by them only
	}
	if fi, _ := os.Stat(d.Path()); fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir %v", fi.Mode())
	}
	if _, err := d.Save(t0, 1, []byte("<html>")); err != ErrNotPNG {
		t.Fatal(err)
	}
}
