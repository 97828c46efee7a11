package history

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gasoline-dev/gasoline/features/decisions"
	"github.com/gasoline-dev/gasoline/features/pointing"
)

// PointedFile is the file, beside the history, that holds what the human
// pointed the AI at, and who read it, for the port's next owner.
const PointedFile = "pointed.json"

// SavePointed keeps the board in dir for the port's next owner (0600),
// whole or not at all: a reader sees the previous file or this one.
func SavePointed(dir string, b *pointing.Board) error {
	data, err := b.Keep()
	if err != nil {
		return err
	}
	return decisions.Replace(filepath.Join(dir, PointedFile), data)
}

// LoadPointed puts on b what the previous owner kept in dir: how many
// entries it restored and how many it skipped. A missing file is an
// os.ErrNotExist; one above pointing.MaxKept bytes, or not a board, is
// an error and b stays empty.
func LoadPointed(dir string, b *pointing.Board) (restored, skipped int, err error) {
	f, err := os.Open(filepath.Join(dir, PointedFile))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, pointing.MaxKept+1))
	if err != nil {
		return 0, 0, err
	}
	if len(data) > pointing.MaxKept {
		return 0, 0, fmt.Errorf("%s is larger than %d bytes", PointedFile, pointing.MaxKept)
	}
	restored, skipped, err = b.Restore(data)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", PointedFile, err)
	}
	return restored, skipped, nil
}
