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

// Issue 41: the page's timestamp names a screenshot but does not order the
// pruning: one stamped year 9999 goes like any other, and files are 0600
// in a 0700 folder.
func TestPruneIgnoresThePagesTime(t *testing.T) {
	d := New(t.TempDir() + "/shots")
	png := append([]byte(nil), pngMagic...)
	future, err := d.Save(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), 1, png)
	if err != nil {
		t.Fatal(err)
	}
	past, _ := d.Save(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), 1, png)
	for i := range Keep - 1 {
		if _, err := d.Save(time.Date(2026, 11, 27, 10, 0, i, 0, time.UTC), 2, png); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(future); !os.IsNotExist(err) {
		t.Fatalf("the year-9999 screenshot is still there: %v", err)
	}
	fi, err := os.Stat(past)
	if err != nil {
		t.Fatalf("a newer screenshot went instead: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("screenshot mode %v", fi.Mode().Perm())
	}
	if di, _ := os.Stat(d.Path()); di.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v", di.Mode().Perm())
	}
}
