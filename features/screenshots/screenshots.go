// Package screenshots keeps the PNGs the extension captures when an error
// happens (screenshot_on_error), bounded to the newest few on disk.
package screenshots

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Keep is how many screenshots stay on disk.
const Keep = 50

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// ErrNotPNG rejects anything that is not a PNG image.
var ErrNotPNG = errors.New("not a PNG image")

// Dir stores screenshots in one directory. Safe for concurrent use.
type Dir struct {
	path string
	keep int
	mu   sync.Mutex
}

// New returns a store in path (created on first save).
func New(path string) *Dir { return &Dir{path: path, keep: Keep} }

// Path is the directory screenshots are written to.
func (d *Dir) Path() string { return d.path }

// Save writes one PNG named for its time and tab, then prunes the oldest
// beyond Keep. It returns the file's path.
func (d *Dir) Save(at time.Time, tab int, png []byte) (string, error) {
	if !bytes.HasPrefix(png, pngMagic) {
		return "", ErrNotPNG
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := os.MkdirAll(d.path, 0o700); err != nil {
		return "", fmt.Errorf("create screenshot dir: %w", err)
	}
	name := fmt.Sprintf("error-%s-tab%d.png", at.UTC().Format("20060102-150405.000"), tab)
	file := filepath.Join(d.path, name)
	if err := os.WriteFile(file, png, 0o600); err != nil {
		return "", fmt.Errorf("write screenshot: %w", err)
	}
	d.prune()
	return file, nil
}

// prune removes the oldest screenshots beyond keep; names sort by time.
func (d *Dir) prune() {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "error-") && strings.HasSuffix(e.Name(), ".png") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for len(names) > d.keep {
		os.Remove(filepath.Join(d.path, names[0]))
		names = names[1:]
	}
}
