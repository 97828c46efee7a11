package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/doctor"
)

// The header's live status and the doctor's last report say one thing:
// when the extension connects, the doctor runs again at once instead of
// saying "not connected" under "● connected" until its next tick.
func TestDoctorRunsAgainWhenTheHeaderFactsChange(t *testing.T) {
	m := sampleModel()
	h := *m.health
	h.Extension.Connected = false
	m.Update(StatusMsg(h))
	m.Update(truthDoctor(m))
	if !strings.Contains(m.View(), "✗ extension: not connected") {
		t.Fatalf("the doctor's report is not shown:\n%s", m.View())
	}
	runs := 0
	m.doc.run = func(context.Context) doctor.Report {
		runs++
		return doctor.Report(truthDoctor(m))
	}
	h.Extension.Connected = true
	_, cmd := m.Update(StatusMsg(h))
	if cmd == nil {
		t.Fatal("the extension connected and the doctor did not run again")
	}
	msg, ok := cmd().(DoctorMsg)
	if !ok || runs != 1 {
		t.Fatalf("the command is %T after %d runs, want the doctor's report", msg, runs)
	}
	m.Update(msg)
	if v := m.View(); strings.Contains(v, "not connected") || !strings.Contains(v, "extension: ● connected") {
		t.Fatalf("the header contradicts itself:\n%s", v)
	}
	if _, cmd := m.Update(StatusMsg(h)); cmd != nil {
		t.Fatal("an unchanged status ran the doctor again")
	}
}

// A change during a run queues one more run after it; the tick a recheck
// overtook starts nothing, so the checks keep one schedule.
func TestDoctorRecheckKeepsOneSchedule(t *testing.T) {
	d := doctorState{run: func(context.Context) doctor.Report { return doctor.Report{} }}
	if d.start() == nil || !d.running {
		t.Fatal("the first run did not start")
	}
	if d.recheck() != nil || !d.again {
		t.Fatal("a recheck during a run started a second one at once")
	}
	if d.done(doctor.Report{}); !d.running || d.again {
		t.Fatal("the run after a recheck did not follow at once")
	}
	stale := d.gen
	d.done(doctor.Report{})
	if d.running {
		t.Fatal("a run with no recheck did not wait for its tick")
	}
	if d.due(stale) != nil {
		t.Fatal("an overtaken tick started a run")
	}
	if d.due(d.gen) == nil {
		t.Fatal("the current tick started nothing")
	}
}
