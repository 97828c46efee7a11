package history

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/decisions"
)

// PageFile is the file, beside the history, that holds the tracked tab for
// the port's next owner: it names the tab at once, before the extension's
// socket reaches it (and an extension that only polls never says it again
// until the tab changes).
const PageFile = "page.json"

// maxPageFile bounds what LoadPage reads: a tab's URL and title.
const maxPageFile = 16 << 10

// SavePage keeps p in dir for the port's next owner (0600).
func SavePage(dir string, p capture.Page) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return decisions.Replace(filepath.Join(dir, PageFile), b)
}

// LoadPage is the tab the previous owner kept in dir; false when there is
// none, or what is there is not a tab.
func LoadPage(dir string) (capture.Page, bool) {
	var p capture.Page
	f, err := os.Open(filepath.Join(dir, PageFile))
	if err != nil {
		return p, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPageFile))
	if err != nil || json.Unmarshal(b, &p) != nil || p.URL == "" || p.TabID <= 0 {
		return capture.Page{}, false
	}
	return p, true
}
