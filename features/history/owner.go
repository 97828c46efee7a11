package history

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gasoline-dev/gasoline/features/decisions"
)

// Owner is what a history directory says about the process that writes
// it, so its successor can say where the history came from.
type Owner struct {
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	// Saved is when its records were last synced.
	Saved time.Time `json:"saved,omitzero"`
	// Seq is the highest sequence number written (or cleared) so far.
	Seq uint64 `json:"seq,omitempty"`
	// Clean is set by Close: false after a crash or a SIGKILL.
	Clean bool `json:"clean,omitempty"`
}

const ownerFile = "owner.json"

// readOwner reads the owner file of dir; at most 4 KiB of it.
func readOwner(dir string) (Owner, error) {
	var o Owner
	f, err := os.Open(filepath.Join(dir, ownerFile))
	if err != nil {
		return o, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4<<10))
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return Owner{}, err
	}
	return o, nil
}

// writeOwner replaces the owner file whole: a reader sees the old one or
// the new one.
func writeOwner(dir string, o Owner) error {
	b, err := json.Marshal(o)
	if err == nil {
		err = decisions.WriteFile(filepath.Join(dir, ownerFile), b)
	}
	if err != nil {
		return fmt.Errorf("write history owner: %w", err)
	}
	return nil
}
