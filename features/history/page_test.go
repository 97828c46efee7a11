package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

func TestPageKeptForTheNextOwner(t *testing.T) {
	dir := t.TempDir()
	if _, ok := LoadPage(dir); ok {
		t.Fatal("a page from an empty directory")
	}
	want := capture.Page{TabID: 7, URL: "http://app.test/", Title: "App"}
	if err := SavePage(dir, want); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, PageFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v %v", PageFile, fi, err)
	}
	if got, ok := LoadPage(dir); !ok || got.TabID != want.TabID || got.URL != want.URL || got.Title != want.Title {
		t.Fatalf("loaded %+v %v, want %+v", got, ok, want)
	}
}

func TestPageFileThatIsNotATab(t *testing.T) {
	for name, body := range map[string]string{
		"garbage":  "{not json",
		"no url":   `{"tab":7}`,
		"no tab":   `{"url":"http://app.test/"}`,
		"too long": `{"tab":7,"url":"http://app.test/","title":"` + strings.Repeat("x", maxPageFile) + `"}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, PageFile), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if p, ok := LoadPage(dir); ok {
			t.Errorf("%s: loaded %+v", name, p)
		}
	}
}
