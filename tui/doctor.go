package tui

import (
	"context"
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

// doctorDue says it is time to run the checks again.
type doctorDue struct{}

// doctorState runs gasoline doctor's checks off the UI goroutine, one run
// at a time, every DoctorEvery, and keeps the last report.
type doctorState struct {
	run     func(context.Context) doctor.Report
	running bool
	report  *doctor.Report
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
	return tea.Tick(DoctorEvery, func(time.Time) tea.Msg { return doctorDue{} })
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
	m.detail = newDetail("gasoline doctor (checked every 5 s)", doctorText(*m.doc.report), m.width, m.bodyHeight())
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
