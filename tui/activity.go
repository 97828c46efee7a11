package tui

import (
	"fmt"
	"strings"
	"time"
)

// rateWindow is how many seconds the sparklines cover.
const rateWindow = 60

// rates counts events per second over the last rateWindow seconds, in a
// fixed ring of slots: each slot knows the second it counts, so a slot
// left from an earlier minute reads as zero without any timer.
type rates struct {
	sec [rateWindow]int64
	n   [rateWindow]int
}

// add counts one event at t. An event stamped after now counts now (a
// clock a little ahead); one older than the window is not drawn.
func (r *rates) add(t, now time.Time) {
	s := t.Unix()
	if t.IsZero() || s > now.Unix() {
		s = now.Unix()
	}
	if s <= now.Unix()-rateWindow {
		return
	}
	i := s % rateWindow
	if r.sec[i] != s {
		r.sec[i], r.n[i] = s, 0
	}
	r.n[i]++
}

// series is the counts of the rateWindow seconds up to now, oldest first.
func (r *rates) series(now time.Time) []int {
	out := make([]int, rateWindow)
	end := now.Unix()
	for k := range rateWindow {
		s := end - rateWindow + 1 + int64(k)
		if i := s % rateWindow; r.sec[i] == s {
			out[k] = r.n[i]
		}
	}
	return out
}

// traffic is what the sparklines draw: requests, and errors (console
// errors, exceptions, rejections, and requests that failed or got a 4xx
// or 5xx), per second.
type traffic struct{ req, errs rates }

// count takes in the entries the dashboard just received.
func (t *traffic) count(e EntriesMsg, now time.Time) {
	for _, n := range e.Network {
		t.req.add(n.TS.Time, now)
		if n.Status >= 400 || n.Error != "" {
			t.errs.add(n.TS.Time, now)
		}
	}
	for _, l := range e.Logs {
		if l.Level == "error" || l.Kind == "exception" || l.Kind == "rejection" {
			t.errs.add(l.TS.Time, now)
		}
	}
}

// sparkLevels are the bars of a sparkline, lowest first: the lowest is
// an empty second, so any event draws at least the second bar.
var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// sparkline draws vals (oldest first) in cells columns, newest on the
// right; each column sums the seconds it covers, and the tallest column
// is a full bar.
func sparkline(vals []int, cells int) string {
	if cells <= 0 || len(vals) == 0 {
		return ""
	}
	per := (len(vals) + cells - 1) / cells
	cols := make([]int, 0, cells)
	for end := len(vals); end > 0 && len(cols) < cells; end -= per {
		sum := 0
		for _, v := range vals[max(0, end-per):end] {
			sum += v
		}
		cols = append(cols, sum)
	}
	peak := 0
	for _, c := range cols {
		peak = max(peak, c)
	}
	var b strings.Builder
	for i := len(cols) - 1; i >= 0; i-- {
		lvl := 0
		if c := cols[i]; c > 0 {
			top := len(sparkLevels) - 1
			lvl = (c*top + peak - 1) / peak
		}
		b.WriteRune(sparkLevels[lvl])
	}
	return b.String()
}

// sparkCells are the widths the sparklines may take, widest first.
var sparkCells = []int{60, 30, 20, 12, 8}

// activityView is the header's line of what is happening now: requests
// and errors per second over the last minute, and the AI's newest read.
// The number after each sparkline is the last whole second's count. A
// pure function, for golden tests.
func activityView(t *traffic, rs readsState, now time.Time, width int) string {
	req, errs := t.req.series(now), t.errs.series(now)
	var sparks part
	for _, cells := range sparkCells {
		sparks = append(sparks, styleInfo.Render(fmt.Sprintf("req/s %s %d", sparkline(req, cells), req[rateWindow-2]))+sep+
			styleErrSpark(errs).Render(fmt.Sprintf("err/s %s %d", sparkline(errs, cells), errs[rateWindow-2])))
	}
	// The sparklines narrow to their least before the read loses its size.
	order := make([]int, len(sparks), len(sparks)+1)
	return squeeze(width, sep, []part{sparks, readLine(rs, now)}, append(order, 1))
}

// readLine is the AI's newest read, in words, long form first.
func readLine(rs readsState, now time.Time) part {
	audited := ""
	if rs.audited {
		audited = styleDim.Render(" · in the audit file")
	}
	r := rs.last
	if r == nil {
		return part{styleDim.Render("no AI reads yet") + audited, styleDim.Render("no AI reads")}
	}
	what, when := clean(readWhat(*r)), ago(now.Sub(r.At))
	if r.Error != "" {
		return part{styleWarn.Render(fmt.Sprintf("AI read %s ✗ %s %s", what, clean(r.Error), when)) + audited,
			styleWarn.Render(fmt.Sprintf("AI read %s ✗ %s", what, when))}
	}
	return part{styleDim.Render(fmt.Sprintf("AI read %s (%s) %s", what, readSize(*r), when)) + audited,
		styleDim.Render(fmt.Sprintf("AI read %s %s", what, when))}
}

// styleErrSpark colours the errors' sparkline red once any error is in it.
func styleErrSpark(errs []int) interface{ Render(...string) string } {
	for _, n := range errs {
		if n > 0 {
			return styleErr
		}
	}
	return styleDim
}
