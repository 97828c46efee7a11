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
	if _, err := os.Stat(last); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Save(t0, 1, []byte("<html>")); err != ErrNotPNG {
		t.Fatal(err)
	}
}
