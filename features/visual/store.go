package visual

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"
)

// Keep is how many image files a Dir holds: the newest, the rest removed.
const Keep = 30

var safeName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Dir keeps the images of visual checks in one directory, readable by the
// user only. Safe for concurrent use.
type Dir struct {
	path string
	mu   sync.Mutex
}

// NewDir returns a store in path (created on first write).
func NewDir(path string) *Dir { return &Dir{path: path} }

// Write stores data as <session>-<part>.png and returns its path.
func (d *Dir) Write(session, part string, data []byte) (string, error) {
	if !safeName.MatchString(session) || !safeName.MatchString(part) {
		return "", fmt.Errorf("visual: bad file name %q-%q", session, part)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := os.MkdirAll(d.path, 0o700); err != nil {
		return "", fmt.Errorf("visual: %w", err)
	}
	file := filepath.Join(d.path, session+"-"+part+".png")
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return "", fmt.Errorf("visual: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("visual: %w", err)
	}
	d.prune()
	return file, nil
}

// WriteImage encodes img as PNG and writes it.
func (d *Dir) WriteImage(session, part string, img image.Image) (string, error) {
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
		return "", err
	}
	return d.Write(session, part, b.Bytes())
}

// Read decodes the PNG written for session and part.
func (d *Dir) Read(session, part string) (image.Image, error) {
	if !safeName.MatchString(session) || !safeName.MatchString(part) {
		return nil, fmt.Errorf("visual: bad file name %q-%q", session, part)
	}
	f, err := os.Open(filepath.Join(d.path, session+"-"+part+".png"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return png.Decode(f)
}

// prune removes the oldest images beyond Keep.
func (d *Dir) prune() {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	type file struct {
		name string
		at   time.Time
	}
	var files []file
	for _, e := range entries {
		if info, err := e.Info(); err == nil && !e.IsDir() && filepath.Ext(e.Name()) == ".png" {
			files = append(files, file{e.Name(), info.ModTime()})
		}
	}
	if len(files) <= Keep {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return a.at.Compare(b.at) })
	for _, f := range files[:len(files)-Keep] {
		os.Remove(filepath.Join(d.path, f.name))
	}
}

// Path is where the image of session and part is written.
func (d *Dir) Path(session, part string) string {
	return filepath.Join(d.path, session+"-"+part+".png")
}
