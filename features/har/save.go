package har

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Keep is how many archives Save leaves in its directory.
const Keep = 10

// Save writes one archive into dir (created 0700), named for at, then
// removes the oldest beyond Keep: the names sort by time. An archive holds
// what the developer's browser sent, so it is 0600.
func Save(dir string, archive []byte, at time.Time) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create har dir: %w", err)
	}
	path := filepath.Join(dir, at.UTC().Format("20060102T150405.000000000Z")+".har")
	if err := os.WriteFile(path, archive, 0o600); err != nil {
		return "", fmt.Errorf("write har: %w", err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.har"))
	slices.Sort(old)
	for len(old) > Keep {
		_ = os.Remove(old[0])
		old = old[1:]
	}
	return path, nil
}
