package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/har"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/redact"
	"github.com/gasoline-dev/gasoline/features/testgen"
)

// The parameters of generate{format:"test"}; url_filter is observe's.
var (
	testNameParam = nameParam.describe("test: title")
	baseURLParam  = newParam[string]("base_url", "test: origin to run against")
	mockParam     = newParam[bool]("mock_api", "test: mock captured APIs")
	shotsParam    = newParam[bool]("screenshots", "test: add toHaveScreenshot()")
)

// What an artifact is generated from: the newest captured entries.
const (
	genActions = 200
	genNetwork = 500
	genBodies  = 100
)

// HAR files: an archive of a full buffer is megabytes, too much for an AI's
// context, so it goes to a file; only a small one is also returned inline.
const (
	harInline = 8 << 10 // bytes up to which the archive is also in the result
)

// Perf exposes the page-load store: snapshot.NewReader takes its Latest as
// the perf.LatestFunc of verify and diff.
func (s *Server) Perf() *perf.Store { return s.perf }

// addPerformance stores the samples of POST /performance, each URL scrubbed
// of secrets first.
func (s *Server) addPerformance(samples []perf.Sample) (int, []capture.Rejection) {
	var rej []capture.Rejection
	n := 0
	for i, smp := range samples {
		smp.URL = redact.URL(smp.URL)
		redactResources(&smp)
		if smp.More {
			if err := s.addLaterRows(smp); err != nil {
				rej = append(rej, capture.Rejection{Index: i, Error: err.Error()})
				continue
			}
			n++
			continue
		}
		added, err := s.perf.Add(smp)
		if err != nil {
			rej = append(rej, capture.Rejection{Index: i, Error: err.Error()})
			continue
		}
		s.pageLoaded(added)
		n++
	}
	return n, rej
}

func (s *Server) observePerformance(ctx context.Context, a args) (any, error) {
	pages := s.perf.Snapshots(urlParam.get(a), min(limitParam.get(a), perf.MaxPages))
	s.auditMode(ctx, "observe", "performance", fmt.Sprintf("%d pages", len(pages)), nil)
	return struct {
		Count int             `json:"count"`
		Pages []perf.Snapshot `json:"pages,omitempty"`
	}{len(pages), pages}, nil
}

func (s *Server) analyzePerformance(ctx context.Context, a args) (any, error) {
	c := s.perf.Check(filterParam.get(a))
	s.auditMode(ctx, "analyze", "performance", fmt.Sprintf("%s, %d pages", c.Verdict, len(c.Pages)), nil)
	return c, nil
}

// session collects what an artifact is generated from.
func (s *Server) session(urlFilter string) testgen.Session {
	return testgen.Session{
		Actions: s.store.Actions(capture.Query{Limit: genActions, URL: urlFilter}).Entries,
		Network: s.store.Network(capture.Query{Limit: genNetwork, URL: urlFilter}).Entries,
		Bodies:  s.store.Bodies(capture.Query{Limit: genBodies, URL: urlFilter}).Entries,
	}
}

func (s *Server) generateTest(ctx context.Context, a args) (any, error) {
	o := testgen.Options{Name: testNameParam.get(a), BaseURL: baseURLParam.get(a), MockAPI: mockParam.get(a),
		Screenshots: shotsParam.get(a), URLFilter: filterParam.get(a)}
	sess := s.session("")
	sess.DOM = s.pageDOM(ctx)
	r, err := testgen.Generate(sess, o)
	if errors.Is(err, testgen.ErrNoActions) {
		s.auditMode(ctx, "generate", "test", "no actions", nil)
		return nil, problem.New(problem.NotFound, "%v", err)
	}
	if err != nil {
		return nil, err
	}
	s.auditMode(ctx, "generate", "test", fmt.Sprintf("%s: %d steps, %d assertions", r.Filename, r.Steps, r.Assertions), nil)
	return r, nil
}

// pageDOM is the tracked page's headings and test ids for the test's final
// assertions, when the extension answers within a short wait; a test
// without them is still a test.
func (s *Server) pageDOM(ctx context.Context) *testgen.DOM {
	if !s.queries.Reachable() {
		return nil
	}
	const wait = 3 * time.Second
	var info browser.PageInfo
	if _, err := s.ask(ctx, browser.KindPageInfo, 0, struct{}{}, wait, &info); err != nil {
		return nil
	}
	info.Enforce()
	d := &testgen.DOM{URL: info.URL, Headings: info.Headings}
	p := browser.DOMParams{Selector: "[data-testid]"}
	var r browser.DOMResult
	if p.Check() != nil {
		return d
	}
	if _, err := s.ask(ctx, browser.KindDOM, 0, p, wait, &r); err == nil {
		r.Enforce(p.MaxDepth)
		d.Elements = r.Matches
	}
	return d
}

// harResult is what generate{format:"har"} answers: where the archive is
// and what it holds; the archive itself only when small.
type harResult struct {
	Path    string          `json:"path,omitempty"`
	Entries int             `json:"entries"`
	Pages   int             `json:"pages"`
	Bytes   int             `json:"bytes"`
	HAR     json.RawMessage `json:"har,omitempty"`
}

func (s *Server) generateHAR(ctx context.Context, a args) (any, error) {
	sess := s.session(filterParam.get(a))
	log := har.Build(sess.Network, sess.Bodies, har.Options{URLFilter: filterParam.get(a), Version: s.cfg.Version})
	b, err := json.Marshal(log)
	if err != nil {
		return nil, fmt.Errorf("encode har: %w", err)
	}
	r := harResult{Entries: len(log.Log.Entries), Pages: len(log.Log.Pages), Bytes: len(b)}
	if r.Entries == 0 {
		s.auditMode(ctx, "generate", "har", "no requests", nil)
		return nil, problem.New(problem.NotFound, "no captured requests%s", filterNote(filterParam.get(a)))
	}
	if s.cfg.HARDir != "" {
		if r.Path, err = har.Save(s.cfg.HARDir, b, time.Now()); err != nil {
			return nil, err
		}
	}
	if len(b) <= harInline {
		r.HAR = b
	} else if r.Path == "" {
		return nil, problem.New(problem.Internal, "the archive is %d bytes and no HAR directory is configured", len(b))
	}
	s.auditMode(ctx, "generate", "har", fmt.Sprintf("%d entries, %d bytes %s", r.Entries, r.Bytes, r.Path), nil)
	return r, nil
}

func filterNote(f string) string {
	if f == "" {
		return ""
	}
	return fmt.Sprintf(" matching %q", f)
}
