package visual

import (
	"bytes"
	"fmt"
	"image/png"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// Check is verify's visual check: the screenshots' files, and at compare
// how much changed and where; or why there is none, as "code: message".
type Check struct {
	Start   string `json:"start,omitempty"`
	Compare string `json:"compare,omitempty"`
	Diff    string `json:"diff,omitempty"`
	*Result
	Error string `json:"error,omitempty"`
}

// Brief is the check's part of verify's audit line.
func (c *Check) Brief() string {
	switch {
	case c == nil:
		return ""
	case c.Error != "":
		return "; visual: " + c.Error
	case c.Result != nil:
		return fmt.Sprintf("; visual: %.2f%% changed", c.ChangedShare)
	}
	return "; visual: start taken"
}

// Start keeps a session's screenshot at start; shoot takes the page's PNG.
func (d *Dir) Start(session string, shoot func() ([]byte, error)) *Check {
	c := &Check{}
	if shot, shotErr := shoot(); shotErr != nil {
		c.Error = problem.From(shotErr).Error()
	} else if path, err := d.Write(session, "start", shot); err != nil {
		c.Error = string(problem.Internal) + ": " + err.Error()
	} else {
		c.Start = path
	}
	return c
}

// Compared compares the page now, as shoot takes it, with the session's
// screenshot at start, and keeps both and their difference; without a
// screenshot at start it takes none.
func (d *Dir) Compared(session string, shoot func() ([]byte, error)) *Check {
	c := &Check{}
	before, err := d.Read(session, "start")
	if err != nil {
		c.Error = string(problem.NotFound) + ": no screenshot was taken at start"
		return c
	}
	shot, shotErr := shoot()
	if shotErr != nil {
		c.Error = problem.From(shotErr).Error()
		return c
	}
	after, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		c.Error = string(problem.Internal) + ": " + err.Error()
		return c
	}
	res, diff := Compare(before, after)
	c.Result = &res
	c.Start = d.Path(session, "start")
	if c.Compare, err = d.Write(session, "compare", shot); err == nil {
		c.Diff, err = d.WriteImage(session, "diff", diff)
	}
	if err != nil {
		c.Error = string(problem.Internal) + ": " + err.Error()
	}
	return c
}
