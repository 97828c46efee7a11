package apicontract

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Violation types and severities, from the spec's table.
const (
	ShapeChange      = "shape_change"       // fields missing: warning once established by 3+ responses
	TypeChange       = "type_change"        // warning
	ErrorSpike       = "error_spike"        // critical for 5xx, warning for 4xx
	NewField         = "new_field"          // info
	ArrayShapeChange = "array_shape_change" // warning
	NullField        = "null_field"         // info
)

// Violation is one way an endpoint broke its established shape, counted
// over the responses that broke it the same way. Only types are reported,
// never values.
type Violation struct {
	Type     string `json:"type"`
	Severity string `json:"severity"`
	// Field is the path of the field concerned: "price", "user.name",
	// "items[].id".
	Field string `json:"field,omitempty"`
	// Fields lists missing fields (shape_change, array_shape_change) or
	// new ones (new_field).
	Fields   []string `json:"fields,omitempty"`
	Expected string   `json:"expected,omitempty"`
	Actual   string   `json:"actual,omitempty"`
	// Established is how many responses matched the shape before the
	// first violation (the spec's N).
	Established int `json:"established_by,omitempty"`
	Count       int `json:"count"`
	// StatusHistory and Successes describe an error_spike (Count is the
	// errors since the last success).
	StatusHistory []int        `json:"status_history,omitempty"`
	Successes     int          `json:"successes,omitempty"`
	First         capture.Time `json:"first"`
	// Last is the latest occurrence, when there was more than one.
	Last *capture.Time `json:"last,omitempty"`
}

// severity of a shape_change depends on how established the missing
// fields were.
func shapeChangeSeverity(n int) string {
	if n >= MinConsistent {
		return "warning"
	}
	return "info"
}

// violations groups one response's differences: missing fields in one
// violation, new fields in one, one per changed type or null.
func violations(diffs []diff, n int) []Violation {
	var missing, arrMissing, added []string
	var out []Violation
	for _, d := range diffs {
		switch d.kind {
		case "missing":
			if d.inArray {
				arrMissing = append(arrMissing, d.path)
			} else {
				missing = append(missing, d.path)
			}
		case "new":
			added = append(added, d.path)
		case "type":
			out = append(out, Violation{Type: TypeChange, Severity: "warning", Field: d.path, Expected: d.expected.String(), Actual: d.actual.String()})
		case "elem":
			out = append(out, Violation{Type: ArrayShapeChange, Severity: "warning", Field: d.path, Expected: d.expected.String(), Actual: d.actual.String()})
		case "null":
			out = append(out, Violation{Type: NullField, Severity: "info", Field: d.path, Expected: d.expected.String(), Actual: "null"})
		}
	}
	if len(missing) > 0 {
		out = append(out, Violation{Type: ShapeChange, Severity: shapeChangeSeverity(n), Fields: missing})
	}
	if len(arrMissing) > 0 {
		out = append(out, Violation{Type: ArrayShapeChange, Severity: "warning", Fields: arrMissing})
	}
	if len(added) > 0 {
		out = append(out, Violation{Type: NewField, Severity: "info", Fields: added})
	}
	for i := range out {
		out[i].Established = n
	}
	return out
}

// Options narrow what Analyze and Report show.
type Options struct {
	URLFilter string   // substring of the endpoint ("GET /api/users/:id") or its URL
	Ignore    []string // substrings of endpoints to leave out ("/health")
}

func (o Options) keep(e *endpoint) bool {
	if o.URLFilter != "" && !strings.Contains(e.key, o.URLFilter) && !strings.Contains(e.url, o.URLFilter) {
		return false
	}
	for _, ig := range o.Ignore {
		if ig != "" && (strings.Contains(e.key, ig) || strings.Contains(e.url, ig)) {
			return false
		}
	}
	return true
}

// EndpointViolations are one endpoint's violations, the endpoint stated
// once.
type EndpointViolations struct {
	Endpoint   string      `json:"endpoint"`
	Violations []Violation `json:"violations"`
	// Dropped counts distinct violations past MaxViolations.
	Dropped int `json:"dropped,omitempty"`
}

// Analysis is the result of the analyze action.
type Analysis struct {
	Endpoints []EndpointViolations `json:"endpoints"`
	Tracked   int                  `json:"tracked_endpoints"`
	Clean     int                  `json:"clean_endpoints"`
	// Learning counts endpoints with fewer than MinConsistent identical
	// responses so far: no shape violations are reported for them yet.
	Learning int `json:"learning_endpoints,omitempty"`
	Requests int `json:"total_requests_analyzed"`
	// Evicted counts endpoints forgotten to stay within MaxEndpoints.
	Evicted int `json:"evicted_endpoints,omitempty"`
}

// Analyze reports every endpoint's violations, worst first.
func (t *Tracker) Analyze(o Options) Analysis {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := Analysis{Endpoints: []EndpointViolations{}, Requests: t.requests, Evicted: t.evicted}
	for _, e := range t.sorted(o) {
		a.Tracked++
		if !e.established {
			a.Learning++
		}
		var vs []Violation
		if spike, ok := e.errorSpike(); ok {
			vs = append(vs, spike)
		}
		for _, v := range e.violations {
			out := v.Violation
			if out.Count > 1 {
				last := v.last
				out.Last = &last
			}
			vs = append(vs, out)
		}
		if len(vs) == 0 {
			if e.established {
				a.Clean++
			}
			continue
		}
		slices.SortStableFunc(vs, func(x, y Violation) int { return cmp.Compare(sevRank(y.Severity), sevRank(x.Severity)) })
		a.Endpoints = append(a.Endpoints, EndpointViolations{Endpoint: e.key, Violations: vs, Dropped: e.dropped})
	}
	slices.SortStableFunc(a.Endpoints, func(x, y EndpointViolations) int {
		return cmp.Compare(sevRank(y.Violations[0].Severity), sevRank(x.Violations[0].Severity))
	})
	return a
}

func sevRank(s string) int {
	switch s {
	case "critical":
		return 2
	case "warning":
		return 1
	}
	return 0
}

// sorted returns the kept endpoints, most recently called first.
func (t *Tracker) sorted(o Options) []*endpoint {
	var out []*endpoint
	for _, e := range t.endpoints {
		if o.keep(e) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(x, y *endpoint) int { return cmp.Compare(y.seq, x.seq) })
	return out
}

// errorSpike reports an endpoint whose latest responses are errors after
// at least one success: critical when any of those errors is a 5xx.
func (e *endpoint) errorSpike() (Violation, bool) {
	h := make([]int, len(e.statuses))
	for i, s := range e.statuses {
		h[i] = s.code
	}
	errs, fives := 0, false
	for i := len(h) - 1; i >= 0 && h[i] >= 400; i-- {
		errs++
		fives = fives || h[i] >= 500
	}
	ok := 0
	for i := len(h) - 1 - errs; i >= 0 && h[i] < 400; i-- {
		ok++
	}
	if errs == 0 || ok == 0 {
		return Violation{}, false
	}
	sev := "warning"
	if fives {
		sev = "critical"
	}
	v := Violation{Type: ErrorSpike, Severity: sev, StatusHistory: h, Successes: ok, Count: errs, First: e.statuses[len(h)-errs].ts}
	if errs > 1 {
		v.Last = &e.last
	}
	return v, true
}

// EndpointReport is one tracked endpoint's shape and health.
type EndpointReport struct {
	Endpoint    string          `json:"endpoint"`
	Calls       int             `json:"call_count"`
	StatusCodes map[string]int  `json:"status_codes"`
	Shape       json.RawMessage `json:"shape,omitempty"`
	// ShapeOmitted: the shape did not fit in MaxReportBytes; ask again with
	// url_filter for this endpoint.
	ShapeOmitted bool `json:"shape_omitted,omitempty"`
	// Learning: the shape is a candidate, not yet seen MinConsistent times
	// in a row.
	Learning    bool         `json:"learning,omitempty"`
	Consistency string       `json:"consistency,omitempty"`
	LastCalled  capture.Time `json:"last_called"`
}

// Report is the result of the report action.
type Report struct {
	Endpoints []EndpointReport `json:"endpoints"`
	Evicted   int              `json:"evicted_endpoints,omitempty"`
}

// MaxReportBytes bounds a report: the spec caps an MCP response at 50 KB.
// Shapes of the least recently called endpoints are left out past it.
const MaxReportBytes = 48 << 10

// Report lists the tracked endpoints with their shapes, most recently
// called first.
func (t *Tracker) Report(o Options) Report {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := Report{Endpoints: []EndpointReport{}, Evicted: t.evicted}
	size := 0
	for _, e := range t.sorted(o) {
		er := EndpointReport{Endpoint: e.key, Calls: e.calls, StatusCodes: map[string]int{}, LastCalled: e.last,
			Learning: e.shape != nil && !e.established, Consistency: e.consistency()}
		for c, n := range e.codes {
			er.StatusCodes[strconv.Itoa(c)] = n
		}
		size += 200 // the endpoint's other fields, generously
		if e.shape != nil {
			var b bytes.Buffer
			e.shape.render(&b)
			if size+b.Len() <= MaxReportBytes {
				er.Shape = b.Bytes()
				size += b.Len()
			} else {
				er.ShapeOmitted = true
			}
		}
		r.Endpoints = append(r.Endpoints, er)
	}
	return r
}

// consistency is the share of successful JSON responses that matched the
// shape: since it was established, or in the current learning run.
func (e *endpoint) consistency() string {
	den := e.compared
	if !e.established {
		den = e.shaped
	}
	if den == 0 {
		return ""
	}
	return fmt.Sprintf("%d%%", e.consistent*100/den)
}

// Line is the analysis in one line, for the audit log.
func (a Analysis) Line() string {
	n := 0
	for _, e := range a.Endpoints {
		n += len(e.Violations)
	}
	return fmt.Sprintf("%d violations on %d of %d endpoints (%d learning), %d responses", n, len(a.Endpoints), a.Tracked, a.Learning, a.Requests)
}
