package server

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/features/decisions"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// unreadableRefusal is what the AI gets for a capture change while the
// human's decisions wait to be recovered.
var unreadableRefusal = problem.New(problem.DecisionsUnreadable,
	"The human's Gasoline settings (revoked capture settings, the pilot block, the approval mode) could not be read "+
		"from disk, so capture changes are refused until the human looks. Ask the human to open the Gasoline dashboard "+
		"(run gasoline in a terminal) and recover them; do not retry until they have.")

// humanDecisions keeps the human's decisions (features/decisions) across
// restarts and takeovers: the revoked capture settings, the pilot block, the
// approval mode, the accepted extension origins and audit_reads, each held
// by its own capability, saved together in one file; and the human's
// recovery when that file cannot be read.
type humanDecisions struct {
	file   string // the state file; "": in memory only
	flag   string // --pilot-approval, the mode a recovery from nothing keeps
	log    io.Writer
	trail  *auditTrail
	events *hub
	alerts *alertState // the AI hears of overrides dropped on the way
	// The capabilities whose decisions these are, set once they are built.
	control   *overrides
	pilot     *pilotGate
	approvals *humanApproval
	origins   *extOrigins
	reads     *readLog
	health    func() Health // what a recovery answers

	mu       sync.Mutex // serialises writes of the state file
	restored string     // what restore brought back
	// Under mu: the decisions file could not be read and the human has
	// not recovered; it could not be moved aside (never write over it);
	// why the last save failed.
	held    *decisions.Unreadable
	stuck   bool
	saveErr error
}

func (d *humanDecisions) routes(r routes) {
	r.human("POST /api/decisions/recover", d.handleRecover)
}

// restore brings back what the human decided under a previous
// server on this port (a restart, or a takeover after the owner quit), says
// so in the audit and the header, and prepares an alert for the AI when the
// previous server's AI overrides were dropped on the way.
func (d *humanDecisions) restore() {
	if d.file == "" {
		return
	}
	st, err := decisions.Load(d.file)
	if err != nil {
		st = d.keepUnreadable(err)
	}
	if st.Unreadable != nil {
		// Fail towards the human until they look: whatever the file held
		// may have revoked or blocked more than we know.
		st.PilotBlocked, st.Approval = true, decisions.ApprovalAsk
		st.AuditReads = true
		d.held = st.Unreadable
		d.control.RefuseAI(unreadableRefusal)
	}
	d.control.Restore(st.Revoked)
	d.pilot.SetBlocked(st.PilotBlocked)
	d.approvals.mode.Set(st.Approval)
	d.reads.SetAudited(st.AuditReads)
	d.origins.Restore(st.Origins)
	if st.Unreadable == nil {
		d.restored = st.Summary()
	}
	if d.restored != "" {
		d.trail.write(audit.Event{Event: "decisions_restored", Reason: d.restored, Source: "server"})
	}
	if len(st.AIOverrides) > 0 {
		names := slices.Sorted(maps.Keys(st.AIOverrides))
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s → %v", n, st.AIOverrides[n]))
		}
		d.alerts.boot = &capturectl.Alert{Level: "warning", Type: "capture_dropped",
			Message: "Gasoline's server changed hands (restart or takeover): the AI capture overrides it held (" +
				strings.Join(parts, ", ") + ") were dropped and are back to the user's defaults. " +
				"Set them again if you still need them.",
			Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05.000Z")}
		d.trail.write(audit.Event{Event: "capture_reset", Reason: "takeover", Setting: strings.Join(names, ","), Source: "server"})
	}
	// The file changes only when this start changed what it must hold: the
	// dropped AI overrides are forgotten, an unreadable file becomes the
	// held state beside the kept one. Otherwise it holds what was just
	// read, and rewriting it would only make every start wait on an fsync.
	if err != nil || len(st.AIOverrides) > 0 {
		_ = d.save()
	}
}

// keepUnreadable moves an unreadable decisions file aside, so that no
// save replaces it, and returns the held state that stands in for it.
func (d *humanDecisions) keepUnreadable(loadErr error) decisions.State {
	now := time.Now()
	u := &decisions.Unreadable{Reason: loadErr.Error(), At: now.UTC()}
	kept, err := decisions.KeepAside(d.file, now)
	if err != nil {
		// It stays where it is, and nothing is written over it.
		d.stuck = true
		u.Reason += "; " + err.Error()
	}
	u.Kept = kept
	fmt.Fprintf(d.log, "gasoline: warning: %s; kept as %s. Until you recover in the dashboard, the AI's capture changes are refused, "+
		"the Web Pilot is blocked and pilot approval is ask\n", u.Reason, keptName(u, d.file))
	d.trail.write(audit.Event{Event: "decisions_unreadable", Reason: u.Reason, Source: "server"})
	return decisions.State{Unreadable: u}
}

func keptName(u *decisions.Unreadable, path string) string {
	if u.Kept == "" {
		return path
	}
	return u.Kept
}

// errStuck is a save refused because the unreadable file could not be
// moved aside: writing would destroy it.
var errStuck = errors.New("the unreadable decisions file could not be moved aside, so it is not written over")

// save writes the human's decisions, and the AI overrides held
// now, to the state file. A failure is kept for the dashboard's header and
// returned, so the human's call that caused it can say so.
func (d *humanDecisions) save() error {
	if d.file == "" {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st := decisions.State{
		Revoked:      d.control.State().Revoked,
		PilotBlocked: d.pilot.Status(false).BlockedByUser,
		AIOverrides:  d.control.Values(),
		Origins:      d.origins.Decided(),
		Unreadable:   d.held,
		AuditReads:   d.reads.Audited(),
	}
	if d.approvals.mode.Asks() {
		st.Approval = approval.Ask
	}
	err := errStuck
	if !d.stuck {
		err = decisions.Save(d.file, st)
	}
	d.saveErr = err
	if err != nil {
		fmt.Fprintf(d.log, "gasoline: warning: %v\n", err)
	}
	return err
}

// decided answers a human call that changed a decision: v, or a 5xx
// when the change could not be saved, since it holds for this server only.
func (d *humanDecisions) decided(w http.ResponseWriter, v any) {
	d.mu.Lock()
	err := d.saveErr
	d.mu.Unlock()
	if err != nil {
		writeProblem(w, problem.New(problem.NotSaved, "The change holds for this server, but saving it failed (%v): "+
			"a restart would lose it. Fix the file or its folder, then make the change again.", err))
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// view is what the header shows of the decisions file; nil
// when all is well.
func (d *humanDecisions) view() *wire.Decisions {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.held == nil && d.saveErr == nil {
		return nil
	}
	v := &wire.Decisions{}
	if u := d.held; u != nil {
		v.Unreadable, v.Kept = u.Reason, keptName(u, d.file)
	}
	if d.saveErr != nil {
		v.SaveError = d.saveErr.Error()
	}
	return v
}

// handleRecover is the human's answer to an unreadable decisions file:
// start from the kept file (once it reads: the human may have fixed it)
// or from nothing. Either lifts the hold on the AI.
func (d *humanDecisions) handleRecover(w http.ResponseWriter, r *http.Request) {
	var req wire.Recover
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	d.mu.Lock()
	held := d.held
	d.mu.Unlock()
	if held == nil {
		writeProblem(w, problem.New(problem.NotFound, "the decisions file was read; there is nothing to recover"))
		return
	}
	var reason string
	switch req.From {
	case "kept":
		path := keptName(held, d.file)
		if _, err := os.Lstat(path); err != nil {
			// Load would read a missing file as no decisions at all.
			writeProblem(w, problem.New(problem.DecisionsUnreadable, "the kept file is gone (%v): start from nothing", err))
			return
		}
		st, err := decisions.Load(path)
		if err != nil {
			writeProblem(w, problem.New(problem.DecisionsUnreadable, "the kept file still cannot be read (%v): fix it, or start from nothing", err))
			return
		}
		d.control.Restore(st.Revoked)
		d.pilot.SetBlocked(st.PilotBlocked)
		d.approvals.mode.Set(st.Approval)
		d.reads.SetAudited(st.AuditReads)
		d.origins.Restore(append(d.origins.Decided(), st.Origins...)) // the answers given since win
		reason = "from the kept file " + path
		if sum := st.Summary(); sum != "" {
			reason += ": " + sum
		}
	case "nothing":
		if d.stuck {
			if _, err := decisions.KeepAside(d.file, time.Now()); err != nil {
				writeProblem(w, problem.New(problem.NotSaved, "the unreadable file still cannot be moved aside (%v); move it yourself", err))
				return
			}
		}
		d.pilot.SetBlocked(false)
		d.approvals.mode.Set(d.flag)
		d.reads.SetAudited(false)
		reason = "from nothing"
	default:
		writeProblem(w, problem.New(problem.InvalidParam, `want {"from": "kept"|"nothing"}`))
		return
	}
	d.mu.Lock()
	d.held, d.stuck = nil, false
	d.mu.Unlock()
	d.control.RefuseAI(nil)
	_ = d.save()
	d.trail.write(audit.Event{Event: "decisions_recovered", Reason: reason, Source: "human", Agent: "human"})
	d.events.publish(wire.EventPilot, d.pilot.status())
	d.events.publish(wire.EventApprovals, d.approvals.view())
	d.decided(w, d.health())
}

// Restored says what the server restored of the human's decisions at
// start ("" when nothing).
func (s *Server) Restored() string { return s.dec.restored }
