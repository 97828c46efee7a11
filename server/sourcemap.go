package server

import (
	"time"

	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/security"
	"github.com/gasoline-dev/gasoline/features/sourcemap"
)

// sourceMaps places what the AI and the human read at the original
// sources where scripts have maps (features/sourcemap): observe's stacks,
// verify's and diff's error locations, SARIF's findings, streamed
// notifications and the dashboards' console entries (mapped.go). The
// human's allow list of map origins comes from the extension.
type sourceMaps struct {
	*sourcemap.Resolver
	events  *hub
	audit   func(audit.Event)
	mapping mapping // console entries on their way to the dashboards
}

// stackEntry is a console entry or error as the AI reads it: its stack at
// the developer's original sources where the scripts have source maps,
// written densely (see sourcemap.Render), with the top resolved frame's
// lines. Errors leave out the level, which is always "error" there.
type stackEntry struct {
	TS      capture.Time `json:"ts"`
	Level   string       `json:"level,omitempty"`
	Kind    string       `json:"kind,omitempty"`
	Message string       `json:"message"`
	Args    []string     `json:"args,omitempty"`
	Stack   string       `json:"stack,omitempty"`
	// Code is the top resolved frame's original line, one line either side.
	Code string `json:"code,omitempty"`
	// Source is the script position an exception names, left out when it
	// is the stack's first frame.
	Source     string `json:"source,omitempty"`
	TabID      int    `json:"tab,omitempty"`
	Page       string `json:"page,omitempty"`
	Screenshot string `json:"screenshot,omitempty"`
}

func (e *stackEntry) Where() (*int, *string) { return &e.TabID, &e.Page }

// When is when the entry was captured.
func (e *stackEntry) When() time.Time { return e.TS.Time }

// TextBytes is the length of the entry's text fields (capture.LogEntry's).
func (e *stackEntry) TextBytes() int {
	return len(e.Level) + len(e.Kind) + len(e.Message) + capture.ListBytes(e.Args) + len(e.Stack) + len(e.Code) +
		len(e.Source) + len(e.Page) + len(e.Screenshot)
}

// readStacks adapts a console or error buffer read: the stacks of the
// entries read are resolved together, so each script's map is read once.
func (m *sourceMaps) readStacks(get func(capture.Query) capture.Result[capture.LogEntry], level bool) func(context.Context, args) (any, error) {
	return func(ctx context.Context, a args) (any, error) {
		q, err := captureQuery(a)
		if err != nil {
			return nil, err
		}
		r := get(q)
		out := capture.Result[stackEntry]{Cursor: r.Cursor, More: r.More, Reset: r.Reset, Entries: m.stackEntries(ctx, r.Entries, level)}
		return render[stackEntry](out)
	}
}

func (m *sourceMaps) stackEntries(ctx context.Context, es []capture.LogEntry, level bool) []stackEntry {
	thrown := make([]sourcemap.Thrown, len(es))
	for i, e := range es {
		thrown[i] = sourcemap.Thrown{Page: e.Page, Stack: e.Stack, Source: e.Source}
	}
	placed := m.Place(ctx, thrown)
	out := make([]stackEntry, len(es))
	for i, e := range es {
		out[i] = stackEntry{TS: e.TS, Kind: e.Kind, Message: e.Message, Args: e.Args, TabID: e.TabID, Page: e.Page, Screenshot: e.Screenshot,
			Stack: placed[i].Stack, Code: placed[i].Code, Source: placed[i].Source}
		if level {
			out[i].Level = e.Level
		}
	}
	return out
}

// noteOrigins records the human's source map allow list as the
// extension's settings poll reports it (?sourcemap_origins=, space
// separated). Only the extension's own origin is believed: the AI has no
// way to widen the list (configure knows no such setting).
func (m *sourceMaps) noteOrigins(r *http.Request, fromExtension bool) {
	if !fromExtension || !r.URL.Query().Has("sourcemap_origins") {
		return
	}
	m.setOrigins(strings.Fields(r.URL.Query().Get("sourcemap_origins")))
}

// setOrigins applies the human's allow list as the extension reports it,
// and audits each change (a repeated report is not one).
func (m *sourceMaps) setOrigins(origins []string) {
	if m.SetAllowed(origins) {
		m.audit(audit.Event{Event: "sourcemap_origins_changed", To: m.Allowed(), Source: "human", Agent: "extension options"})
	}
}

// prefetch starts reading the maps of each arriving error's scripts,
// so that the AI's first read of it finds them ready.
func (m *sourceMaps) prefetch(ev capture.Event) {
	if e, ok := ev.Entry.(capture.LogEntry); ok && ev.Kind == capture.KindLogs && e.Level == "error" && e.Stack != "" {
		m.Prefetch(sourcemap.Stack{Page: e.Page, Frames: sourcemap.Parse(e.Stack)})
	}
}

// locate names where an error was thrown, at its original source when
// mapped, for verify and diff: its first frame as observe shows it.
func (m *sourceMaps) locate(e capture.LogEntry) string {
	rs := m.Resolve(context.Background(), []sourcemap.Stack{{Page: e.Page, Frames: sourcemap.Parse(e.Stack)}})
	return sourcemap.Render(rs[0], sourcemap.OriginOf(e.Page)).First
}

// mapFindings places the security findings made at a console call site at
// their original source, where the script has a map, for SARIF.
func (m *sourceMaps) mapFindings(r security.Report) security.Report {
	var stacks []sourcemap.Stack
	var at []int
	for i, f := range r.Findings {
		if f.In == "console" && f.Source != "" {
			stacks = append(stacks, sourcemap.Stack{Page: f.Page, Frames: sourcemap.Parse("at " + f.Source)})
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return r
	}
	out := r
	out.Findings = slices.Clone(r.Findings)
	for j, rs := range m.Resolve(context.Background(), stacks) {
		if len(rs) == 1 && rs[0].Mapped {
			out.Findings[at[j]].Source = rs[0].Source + ":" + strconv.Itoa(rs[0].OLine) + ":" + strconv.Itoa(rs[0].OCol)
		}
	}
	return out
}
