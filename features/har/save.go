package har

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gasoline-dev/gasoline/features/problem"
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

// Inline is the size up to which an archive is also returned in the
// result: an archive of a full buffer is megabytes, too much for an AI's
// context, so it goes to a file; only a small one is also read inline.
const Inline = 8 << 10

// Place puts an archive where the AI can reach it: a file in dir when dir
// is set, and inline too (inline true) when it is at most Inline bytes. An
// archive too big to be inline with no dir to hold it is an error.
func Place(dir string, archive []byte, at time.Time) (path string, inline bool, err error) {
	if dir != "" {
		if path, err = Save(dir, archive, at); err != nil {
			return "", false, err
		}
	}
	if len(archive) <= Inline {
		return path, true, nil
	}
	if path == "" {
		return "", false, problem.New(problem.Internal, "the archive is %d bytes and no HAR directory is configured", len(archive))
	}
	return path, false, nil
}
