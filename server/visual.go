package server

import (
	"bytes"
	"context"
	"fmt"
	"image/png"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/verify"
	"github.com/gasoline-dev/gasoline/features/visual"
)

// visualResult is verify's visual check: the screenshots' files under
// ~/.gasoline/visual/, and at compare how much changed and where; or why
// there is none.
type visualResult struct {
	Start   string `json:"start,omitempty"`
	Compare string `json:"compare,omitempty"`
	Diff    string `json:"diff,omitempty"`
	*visual.Result
	Error string `json:"error,omitempty"`
}

func (v *visualResult) brief() string {
	switch {
	case v == nil:
		return ""
	case v.Error != "":
		return "; visual: " + v.Error
	case v.Result != nil:
		return fmt.Sprintf("; visual: %.2f%% changed", v.ChangedShare)
	}
	return "; visual: start taken"
}

type verifyStarted struct {
	*verify.StartResult
	Visual *visualResult `json:"visual,omitempty"`
}

// Brief implements verify.Brief.
func (r verifyStarted) Brief() string { return r.StartResult.Brief() + r.Visual.brief() }

type verifyCompared struct {
	*verify.CompareResult
	Visual *visualResult `json:"visual,omitempty"`
}

// Brief implements verify.Brief.
func (r verifyCompared) Brief() string { return r.CompareResult.Brief() + r.Visual.brief() }

// visualShot is what the visual check captures: the viewport as PNG, so
// that only what changed on the page differs.
var visualShot = browser.ShotParams{Format: "png", MaxWidth: browser.DefaultShotWidth}

// visualCheck adds the visual check to a verify start or compare: a
// screenshot at start, another at compare and their difference.
func (lp *livePage) visualCheck(ctx context.Context, v any) any {
	if lp.visuals == nil {
		return v
	}
	switch r := v.(type) {
	case *verify.StartResult:
		out := &visualResult{}
		if img, err := lp.visualTake(ctx); err != nil {
			out.Error = err.Error()
		} else if out.Start, err = lp.visuals.Write(r.SessionID, "start", img); err != nil {
			out.Error = string(problem.Internal) + ": " + err.Error()
		}
		return verifyStarted{r, out}
	case *verify.CompareResult:
		return verifyCompared{r, lp.visualCompare(ctx, r.SessionID)}
	}
	return v
}

func (lp *livePage) visualCompare(ctx context.Context, session string) *visualResult {
	out := &visualResult{}
	before, err := lp.visuals.Read(session, "start")
	if err != nil {
		out.Error = string(problem.NotFound) + ": no screenshot was taken at start"
		return out
	}
	data, err := lp.visualTake(ctx)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	after, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		out.Error = string(problem.Internal) + ": " + err.Error()
		return out
	}
	res, diff := visual.Compare(before, after)
	out.Result = &res
	out.Start = lp.visuals.Path(session, "start")
	if out.Compare, err = lp.visuals.Write(session, "compare", data); err == nil {
		out.Diff, err = lp.visuals.WriteImage(session, "diff", diff)
	}
	if err != nil {
		out.Error = string(problem.Internal) + ": " + err.Error()
	}
	return out
}

// visualTake is one screenshot's PNG, or the failure as "code: message".
func (lp *livePage) visualTake(ctx context.Context) ([]byte, error) {
	shot, _, err := lp.takeShot(ctx, visualShot, 0)
	if err != nil {
		return nil, problem.From(err)
	}
	return shot.Bytes, nil
}
