package tui

import (
	"context"
	"fmt"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/doctor"
)

// DoctorEvery is how often the header's doctor checks run again.
const DoctorEvery = 5 * time.Second

// doctorTimeout bounds one run of the checks (each HTTP probe has its own
// shorter timeout).
const doctorTimeout = 10 * time.Second

// DoctorMsg is a report of gasoline doctor's checks.
type DoctorMsg doctor.Report

// doctorDue says it is time to run the checks again; gen is the report it
// follows, so a tick a recheck overtook starts nothing.
type doctorDue struct{ gen int }

// doctorState runs gasoline doctor's checks off the UI goroutine, one run
// at a time, every DoctorEvery and whenever the facts it reports change,
// and keeps the last report.
type doctorState struct {
	run     func(context.Context) doctor.Report
	running bool
	// again runs the checks once more when the run under way ends: the
	// facts changed after it started.
	again  bool
	gen    int
	report *doctor.Report
}

// doctorFacts are what the doctor reports that the header also shows from
// the live status: when they change, the last report contradicts the line
// above it until the checks run again.
func doctorFacts(h *Health) string {
	if h == nil {
		return ""
	}
	return fmt.Sprintf("%s|%t|%s|%q", h.Version, h.Extension.Connected, h.Extension.Version, h.Clients)
}

// recheck runs the checks now, or right after the run under way.
func (d *doctorState) recheck() tea.Cmd {
	if d.running {
		d.again = true
		return nil
	}
	return d.start()
}

// start runs the checks unless they are running or there are none.
func (d *doctorState) start() tea.Cmd {
	if d.run == nil || d.running {
		return nil
	}
	d.running = true
	run := d.run
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), doctorTimeout)
		defer cancel()
		return DoctorMsg(run(ctx))
	}
}

// done takes a report and schedules the next run.
func (d *doctorState) done(r doctor.Report) tea.Cmd {
	d.running = false
	d.report = &r
	d.gen++
	if d.again {
		d.again = false
		return d.start()
	}
	gen := d.gen
	return tea.Tick(DoctorEvery, func(time.Time) tea.Msg { return doctorDue{gen} })
}

// due starts the checks the tick of report gen asked for.
func (d *doctorState) due(gen int) tea.Cmd {
	if gen != d.gen {
		return nil
	}
	return d.start()
}

// problems are the report's failures, then its warnings.
func (d *doctorState) problems() []doctor.Check {
	if d.report == nil {
		return nil
	}
	return problemsOf(*d.report)
}

// problemsOf lists a report's failures, then its warnings, each in the
// doctor's order.
func problemsOf(r doctor.Report) []doctor.Check {
	var out []doctor.Check
	for _, st := range []doctor.Status{doctor.Fail, doctor.Warn} {
		for _, c := range r.Checks {
			if c.Status == st {
				out = append(out, c)
			}
		}
	}
	return slices.Clip(out)
}

// openDoctor shows every check in the detail view, as gasoline doctor
// prints them.
func (m *Model) openDoctor() tea.Cmd {
	if m.doc.report == nil {
		if m.doc.run == nil {
			return notice("no doctor in this dashboard")
		}
		return notice("the doctor's first checks are still running")
	}
	m.detail.show("gasoline doctor (checked every 5 s)", doctorText(*m.doc.report), m.width, m.bodyHeight())
	return nil
}

// doctorText is every check of a report, problems first, each with the
// command that fixes it.
func doctorText(r doctor.Report) string {
	marks := map[doctor.Status]string{doctor.OK: "✓", doctor.Warn: "!", doctor.Fail: "✗", doctor.Skip: "-"}
	var b block
	checks := problemsOf(r)
	for _, c := range r.Checks {
		if c.Status != doctor.Fail && c.Status != doctor.Warn {
			checks = append(checks, c)
		}
	}
	for _, c := range checks {
		b.line(marks[c.Status] + " " + c.Name + ": " + cleanBlock(c.Detail))
		if c.Fix != "" && c.Status != doctor.OK {
			b.line("    fix: " + cleanBlock(c.Fix))
		}
	}
	b.line(r.Summary())
	return b.String()
}
