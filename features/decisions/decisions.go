// Package decisions keeps the human's decisions — revoked capture settings,
// the pilot block, the pilot approval mode — in a small file beside the
// audit log, so a restart or a takeover of the port does not hand the AI
// back what the human took away. The AI's own overrides are not restored
// (they live as long as one server); the file only names the ones a server
// held last, so its successor can tell the AI they were dropped.
package decisions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/origins"
)

// Approval modes of the Web Pilot, as the file names them.
const (
	ApprovalAuto = approval.Auto
	ApprovalAsk  = approval.Ask
)

// State is what the file holds.
type State struct {
	// Revoked maps each setting the human revoked to when.
	Revoked map[string]time.Time `json:"revoked,omitempty"`
	// PilotBlocked is the dashboard's block of the Web Pilot.
	PilotBlocked bool `json:"pilot_blocked,omitempty"`
	// Approval is the pilot approval mode; empty means auto.
	Approval string `json:"approval,omitempty"`
	// AuditReads is the human's choice to have the AI's reads written to
	// the audit file too (audit_reads).
	AuditReads bool `json:"audit_reads,omitempty"`
	// AIOverrides are the AI overrides the last server held, by setting,
	// as a record only: a successor never applies them.
	AIOverrides map[string]any `json:"ai_overrides,omitempty"`
	// Origins are the human's answers to extension origins besides the
	// pinned Chrome one (a Firefox install's moz-extension://<uuid>).
	Origins []origins.Decision `json:"origins,omitempty"`
	// Unreadable is set while a file that could not be read waits for the
	// human to look: it is written into the new file so that a restart
	// does not lift the hold the human has not seen.
	Unreadable *Unreadable `json:"unreadable,omitempty"`
}

// Unreadable says why the human's decisions could not be read, and where
// the file that held them was kept.
type Unreadable struct {
	Reason string `json:"reason"`
	// Kept is the path the unreadable file was renamed to; empty when it
	// could not be moved (then it is still at its own path).
	Kept string    `json:"kept,omitempty"`
	At   time.Time `json:"at"`
}

// maxFile bounds what Load reads: the file holds a handful of names.
const maxFile = 64 << 10

// Load reads the state at path; a missing file is the empty state. Any
// other file that does not hold one JSON object of the state (garbage, a
// truncated write, the literal null, an empty file, a directory, a file
// the user may not read) is an error: the caller must not take it for
// "no decisions".
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
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return st, fmt.Errorf("read decisions: %w", err)
	}
	if len(b) > maxFile {
		return st, fmt.Errorf("read decisions: %s is larger than %d bytes", path, maxFile)
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return st, fmt.Errorf("decode decisions %s: not a JSON object", path)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, fmt.Errorf("decode decisions %s: %w", path, err)
	}
	if st.Approval != "" && st.Approval != ApprovalAsk && st.Approval != ApprovalAuto {
		st.Approval = ApprovalAsk // an unknown mode errs on the human's side
	}
	return st, nil
}

// KeepAside renames the file (or whatever else) at path to a name beside
// it that carries at, so that nothing written later at path replaces it,
// and returns that name. An existing name is never reused.
func KeepAside(path string, at time.Time) (string, error) {
	base := path + ".unreadable-" + at.UTC().Format("20060102T150405Z")
	for i := 1; i <= 100; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		if _, err := os.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := os.Rename(path, name); err != nil {
			return "", fmt.Errorf("keep %s aside: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("keep %s aside: every name for %s is taken", path, base)
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
	if st.AuditReads {
		parts = append(parts, "AI reads audited")
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

// Protect makes dir (Gasoline's own folder) 0700 and takes every group and
// other permission off what is inside it, so that files written before
// Gasoline kept them private are private too. Symbolic links are neither
// followed nor changed.
func Protect(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	return filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || path == dir || e.Type()&fs.ModeSymlink != 0 {
			return nil // what cannot be read cannot be tightened; go on with the rest
		}
		fi, err := e.Info()
		if err != nil || fi.Mode().Perm()&0o077 == 0 {
			return nil
		}
		return os.Chmod(path, fi.Mode().Perm()&^0o077)
	})
}
