// Package decisions keeps the human's decisions — revoked capture settings,
// the pilot block, the pilot approval mode — in a small file beside the
// audit log, so a restart or a takeover of the port does not hand the AI
// back what the human took away. The AI's own overrides are not restored
// (they live as long as one server); the file only names the ones a server
// held last, so its successor can tell the AI they were dropped.
package decisions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/origins"
)

// Approval modes of the Web Pilot.
const (
	ApprovalAuto = "auto"
	ApprovalAsk  = "ask"
)

// State is what the file holds.
type State struct {
	// Revoked maps each setting the human revoked to when.
	Revoked map[string]time.Time `json:"revoked,omitempty"`
	// PilotBlocked is the dashboard's block of the Web Pilot.
	PilotBlocked bool `json:"pilot_blocked,omitempty"`
	// Approval is the pilot approval mode; empty means auto.
	Approval string `json:"approval,omitempty"`
	// AIOverrides are the AI overrides the last server held, by setting,
	// as a record only: a successor never applies them.
	AIOverrides map[string]any `json:"ai_overrides,omitempty"`
	// Origins are the human's answers to extension origins besides the
	// pinned Chrome one (a Firefox install's moz-extension://<uuid>).
	Origins []origins.Decision `json:"origins,omitempty"`
}

// maxFile bounds what Load reads: the file holds a handful of names.
const maxFile = 64 << 10

// Load reads the state at path; a missing file is the empty state.
func Load(path string) (State, error) {
	var st State
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("open decisions: %w", err)
	}
	defer f.Close()
	b := make([]byte, maxFile+1)
	n, err := f.Read(b)
	if err != nil && n == 0 {
		return st, fmt.Errorf("read decisions: %w", err)
	}
	if n > maxFile {
		return st, fmt.Errorf("read decisions: %s is larger than %d bytes", path, maxFile)
	}
	if err := json.Unmarshal(b[:n], &st); err != nil {
		return State{}, fmt.Errorf("decode decisions %s: %w", path, err)
	}
	if st.Approval != "" && st.Approval != ApprovalAsk && st.Approval != ApprovalAuto {
		st.Approval = ApprovalAsk // an unknown mode errs on the human's side
	}
	return st, nil
}

// Save writes st to path with WriteFile: a reader sees the old state or
// the new one, never half of either.
func Save(path string, st State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode decisions: %w", err)
	}
	if err := WriteFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("save decisions: %w", err)
	}
	return nil
}

// WriteFile replaces path with data atomically (a temporary file in the
// same folder, renamed over it), makes it readable by the user only, and
// has it on disk before it returns.
func WriteFile(path string, data []byte) error { return replace(path, data, true) }

// Replace is WriteFile without waiting for the disk: readers still see
// the old file or the new one whole, but a crash may lose the change. For
// a file that lives as long as its process (a server's token), that costs
// nothing, and a start does not wait on an fsync.
func Replace(path string, data []byte) error { return replace(path, data, false) }

func replace(path string, data []byte, durable bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil && durable {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Summary says in a few words what restoring st brings back, or "" when
// it holds no decision.
func (st State) Summary() string {
	var parts []string
	if len(st.Revoked) > 0 {
		parts = append(parts, strings.Join(slices.Sorted(maps.Keys(st.Revoked)), ", ")+" revoked")
	}
	if st.PilotBlocked {
		parts = append(parts, "pilot blocked")
	}
	if st.Approval == ApprovalAsk {
		parts = append(parts, "pilot approval: ask")
	}
	if n := countAccepted(st.Origins); n > 0 {
		parts = append(parts, fmt.Sprintf("%d extension origin(s) accepted", n))
	}
	return strings.Join(parts, " · ")
}

func countAccepted(ds []origins.Decision) int {
	n := 0
	for _, d := range ds {
		if d.Accepted {
			n++
		}
	}
	return n
}
