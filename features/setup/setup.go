package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/aymanbagabas/go-udiff"
)

// Action says what setup does to one client's file.
type Action string

// The actions, as setup prints them.
const (
	Added     Action = "added"
	Updated   Action = "updated"
	Unchanged Action = "already set up"
	Removed   Action = "removed"
	Absent    Action = "not set up"
)

// Change is setup's plan for one client's file, made by Plan and carried
// out by Apply.
type Change struct {
	Client Client
	File   string // the file that is written: the client's path, symlinks followed
	Action Action
	// Diff is the unified diff of the change; empty when nothing changes.
	Diff string
	// Backup is the copy of the file as it was, once Apply has made it.
	Backup string

	before, after []byte
	exists        bool
	mode          fs.FileMode
}

// Plan reads the client's file and works out the change that adds cmd to
// it (or, with remove, takes our entry out). It writes nothing. A file
// that does not parse is an error naming the file and line.
func Plan(c Client, env Env, cmd Command, remove bool) (*Change, error) {
	path := c.Path(env)
	ch := &Change{Client: c, File: path, mode: 0o600}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		ch.File = real // a symlinked config stays a symlink
	}
	src, err := os.ReadFile(ch.File)
	switch {
	case err == nil:
		ch.exists = true
		if st, err := os.Stat(ch.File); err == nil {
			ch.mode = st.Mode().Perm()
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	ch.before, ch.after = src, src
	cur, err := c.read(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var want *entry
	if !remove {
		e := c.entry(cmd)
		want = &e
	}
	switch {
	case remove && cur == nil:
		ch.Action = Absent
		return ch, nil
	case remove:
		ch.Action = Removed
	case cur == nil:
		ch.Action = Added
	case cur.Command == want.Command && cur.Type == want.Type && slices.Equal(cur.Args, want.Args):
		ch.Action = Unchanged
		return ch, nil
	default:
		ch.Action = Updated
	}
	if ch.after, err = c.edit(src, want); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ch.after = keepCRLF(src, ch.after)
	from := path
	if !ch.exists {
		from = "/dev/null"
	}
	ch.Diff = udiff.Unified(from, path, string(ch.before), string(ch.after))
	return ch, nil
}

// keepCRLF gives the lines we wrote the file's CRLF endings when every
// line of it had them, so a file saved on Windows does not end up mixed.
func keepCRLF(before, after []byte) []byte {
	n := bytes.Count(before, []byte("\r\n"))
	if n == 0 || n != bytes.Count(before, []byte("\n")) {
		return after
	}
	lf := bytes.ReplaceAll(after, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
}

func (c Client) read(src []byte) (*entry, error) {
	if c.Format == TOML {
		return readTOML(src, c.Key)
	}
	return readJSON(src, c.Format == JSON, c.Key)
}

func (c Client) edit(src []byte, e *entry) ([]byte, error) {
	if c.Format == TOML {
		return editTOML(src, c.Key, e)
	}
	return editJSON(src, c.Format == JSON, c.Key, e)
}

// Apply carries out the change: it copies the file as it was to
// FILE.gasoline-backup-TIME, then replaces the file atomically, keeping its
// permissions. A file that changed since Plan read it is left alone.
func (ch *Change) Apply(now time.Time) error {
	if ch.Action == Unchanged || ch.Action == Absent {
		return nil
	}
	cur, err := os.ReadFile(ch.File)
	if (err == nil) != ch.exists || !bytes.Equal(cur, ch.before) {
		return fmt.Errorf("%s changed while setup ran; run it again", ch.File)
	}
	if ch.exists {
		if ch.Backup, err = backup(ch.File, ch.before, ch.mode, now); err != nil {
			return err
		}
	} else if err := os.MkdirAll(filepath.Dir(ch.File), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(ch.File), err)
	}
	if err := writeAtomic(ch.File, ch.after, ch.mode); err != nil {
		return fmt.Errorf("write %s: %w", ch.File, err)
	}
	return nil
}

// backup writes data next to file, under a name no earlier backup has.
func backup(file string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	base := file + ".gasoline-backup-" + now.UTC().Format("20060102T150405Z")
	for i := 0; ; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", file, err)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", file, err)
		}
		return name, nil
	}
}

// writeAtomic replaces path with data through a temporary file in the
// same folder, so a reader sees the old file or the new one, never half.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Status is what a client's file says about Gasoline.
type Status struct {
	Client Client
	File   string
	Exists bool
	// Entry is how the client starts Gasoline; nil when it does not.
	Entry *Command
}

// Inspect reads a client's file without changing it.
func Inspect(c Client, env Env) (Status, error) {
	st := Status{Client: c, File: c.Path(env)}
	src, err := os.ReadFile(st.File)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return st, nil
	case err != nil:
		return st, fmt.Errorf("read %s: %w", st.File, err)
	}
	st.Exists = true
	e, err := c.read(src)
	if err != nil {
		return st, fmt.Errorf("%s: %w", st.File, err)
	}
	if e != nil {
		st.Entry = &Command{Path: e.Command, Args: e.Args}
	}
	return st, nil
}
