// Package har turns captured network traffic into an HTTP Archive (HAR 1.2),
// the format browser DevTools, proxies and Playwright's routeFromHAR read.
package har

import (
	"cmp"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Log is the root of a HAR document: {"log": {...}}.
type Log struct {
	Log Body `json:"log"`
}

// Body is the HAR log object.
type Body struct {
	Version string  `json:"version"`
	Creator Creator `json:"creator"`
	Pages   []Page  `json:"pages,omitempty"`
	Entries []Entry `json:"entries"`
	Comment string  `json:"comment,omitempty"`
}

// Creator names the application that wrote the archive.
type Creator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Page is one page load the entries were made in: HAR groups requests by page.
type Page struct {
	StartedDateTime string      `json:"startedDateTime"`
	ID              string      `json:"id"`
	Title           string      `json:"title"`
	PageTimings     PageTimings `json:"pageTimings"`
}

// PageTimings are the page's DOMContentLoaded and load event in
// milliseconds from the page's start, as the page measured them; -1 (HAR's
// "not available") for a load not measured.
type PageTimings struct {
	OnContentLoad float64 `json:"onContentLoad"`
	OnLoad        float64 `json:"onLoad"`
}

// Entry is one request and its response.
type Entry struct {
	PageRef         string   `json:"pageref,omitempty"`
	StartedDateTime string   `json:"startedDateTime"`
	Time            float64  `json:"time"`
	Request         Request  `json:"request"`
	Response        Response `json:"response"`
	Cache           struct{} `json:"cache"`
	Timings         Timings  `json:"timings"`
	Comment         string   `json:"comment,omitempty"`
}

// NameValue is a header or query parameter.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Request is the request half of an entry.
type Request struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []NameValue `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	QueryString []NameValue `json:"queryString"`
	PostData    *PostData   `json:"postData,omitempty"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int         `json:"bodySize"`
}

// PostData is a captured request body.
type PostData struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	Comment  string `json:"comment,omitempty"`
}

// Response is the response half of an entry.
type Response struct {
	Status      int         `json:"status"`
	StatusText  string      `json:"statusText"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []NameValue `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	Content     Content     `json:"content"`
	RedirectURL string      `json:"redirectURL"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
}

// Content is the response body.
type Content struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Comment  string `json:"comment,omitempty"`
}

// Timings splits the entry's time. Without the browser's phases the
// capture has only the whole duration, so all of it is "wait" and the
// phases it cannot see are -1.
type Timings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	SSL     float64 `json:"ssl"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// Options shape the archive.
type Options struct {
	// URLFilter keeps requests whose URL contains it.
	URLFilter string
	// Version is Gasoline's version, written as the creator's.
	Version string
	// Loads are the page loads the pages measured, for the pages' timings.
	Loads []Load
}

// httpVersion is what the archive says for the protocol: the page's fetch
// and XHR hooks cannot see it, and HTTP/1.1 is what Playwright's own HAR
// recorder writes when it does not know either.
const httpVersion = "HTTP/1.1"

// Build makes a HAR log of the captured requests, oldest first, a page per
// page load (pages.go). Each waterfall entry takes the body captured for
// the same request (capture.BodyFor); bodies with no waterfall entry become
// entries of their own. Headers arrive already scrubbed by the capture.
func Build(network []capture.NetworkEntry, bodies []capture.NetworkBody, o Options) Log {
	used := make([]bool, len(bodies))
	type row struct {
		n    *capture.NetworkEntry
		body *capture.NetworkBody
	}
	var rows []row
	for i := range network {
		n := &network[i]
		if !strings.Contains(n.URL, o.URLFilter) {
			continue
		}
		var body *capture.NetworkBody
		if bi := capture.BodyFor(*n, bodies, used); bi >= 0 {
			used[bi], body = true, &bodies[bi]
		}
		rows = append(rows, row{n, body})
	}
	for j := range bodies {
		b := &bodies[j]
		if used[j] || !strings.Contains(b.URL, o.URLFilter) {
			continue
		}
		n := &capture.NetworkEntry{TS: b.TS, Method: b.Method, URL: b.URL, Status: b.Status, DurationMS: b.DurationMS, TabID: b.TabID, Page: b.Page}
		rows = append(rows, row{n, b})
	}
	all := make([]*capture.NetworkEntry, len(rows))
	for i, r := range rows {
		all[i] = r.n
	}
	pg := newPager(all)
	of := make([]*page, len(rows))
	for i, r := range rows {
		of[i] = pg.of(r.n)
	}
	pages := pg.pages(o.Loads)
	entries := make([]Entry, len(rows))
	for i, r := range rows {
		ref := ""
		if of[i] != nil {
			ref = of[i].id
		}
		entries[i] = entry(r.n, r.body, ref)
	}
	sort.SliceStable(entries, func(a, b int) bool { return entries[a].StartedDateTime < entries[b].StartedDateTime })
	version := o.Version
	if version == "" {
		version = "dev"
	}
	return Log{Body{Version: "1.2", Creator: Creator{"Gasoline", version}, Pages: pages, Entries: entries}}
}

// phased is the timings of a request whose phases the browser measured:
// what is none of them was blocked (queued); a phase it did not measure (a
// reused connection's dns and connect) is -1.
func phased(n *capture.NetworkEntry) Timings {
	t := n.Timing
	measured := func(v float64) float64 {
		if v > 0 {
			return v
		}
		return -1
	}
	ssl := -1.0
	if t.Connect > 0 {
		ssl = measured(t.TLS)
	}
	blocked := max(n.Elapsed()-t.DNS-t.Connect-t.Wait-t.Download, 0)
	return Timings{Blocked: blocked, DNS: measured(t.DNS), Connect: measured(t.Connect), SSL: ssl, Wait: t.Wait, Receive: t.Download}
}

func pageID(i int) string { return "page_" + strconv.Itoa(i+1) }

func stamp(t time.Time) string { return t.UTC().Format(capture.TimeLayout) }

func entry(n *capture.NetworkEntry, b *capture.NetworkBody, pageref string) Entry {
	d := max(n.DurationMS, 0)
	if d == 0 && b != nil {
		d = max(b.DurationMS, 0)
	}
	e := Entry{
		PageRef:         pageref,
		StartedDateTime: stamp(n.TS.Time),
		Time:            d,
		Request: Request{Method: n.Method, URL: n.URL, HTTPVersion: httpVersion, Cookies: []NameValue{},
			Headers: []NameValue{}, QueryString: query(n.URL), HeadersSize: -1, BodySize: -1},
		Response: Response{Status: n.Status, StatusText: http.StatusText(n.Status), HTTPVersion: httpVersion,
			Cookies: []NameValue{}, Headers: []NameValue{}, HeadersSize: -1, BodySize: -1,
			Content: Content{Size: n.Size, MimeType: cmp.Or(n.Mime, "x-unknown")}},
		Timings: Timings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Wait: d},
	}
	if n.Timing != nil {
		e.Time, e.Timings = n.Elapsed(), phased(n)
	}
	if n.Size > 0 {
		e.Response.BodySize = n.Size
	}
	switch {
	case n.Aborted:
		e.Comment = "aborted"
	case n.Failed || n.Status == 0:
		e.Comment = strings.TrimSpace("failed: " + n.Error)
		if n.Error == "" {
			e.Comment = "no response"
		}
	}
	if b != nil {
		addBody(&e, b)
	}
	return e
}

// addBody fills headers and payloads from a body capture.
func addBody(e *Entry, b *capture.NetworkBody) {
	e.Request.Headers = headers(b.RequestHeaders)
	e.Response.Headers = headers(b.ResponseHeaders)
	if loc := b.ResponseHeaders["location"]; loc != "" {
		e.Response.RedirectURL = loc
	}
	if e.Response.Status == 0 && b.Status != 0 {
		e.Response.Status, e.Response.StatusText = b.Status, http.StatusText(b.Status)
	}
	if b.RequestBody != "" {
		mt := b.RequestHeaders["content-type"]
		if mt == "" {
			mt = sniff(b.RequestBody)
		}
		e.Request.PostData = &PostData{MimeType: mt, Text: b.RequestBody}
		e.Request.BodySize = len(b.RequestBody)
		if b.Truncated && len(b.RequestBody) >= capture.MaxRequestBody {
			e.Request.PostData.Comment = "truncated by Gasoline"
		}
	}
	c := &e.Response.Content
	if b.ContentType != "" {
		c.MimeType = b.ContentType
	} else if ct := b.ResponseHeaders["content-type"]; ct != "" {
		c.MimeType = ct
	}
	switch {
	case strings.HasPrefix(b.ResponseBody, "[Binary: "):
		// Binary bodies are summarised by the capture, never stored.
		c.Comment = "binary body not captured: " + strings.Trim(b.ResponseBody, "[]")
	case b.ResponseBody != "":
		c.Text = b.ResponseBody
		if c.Size == 0 {
			c.Size = int64(len(b.ResponseBody))
		}
		if b.Truncated && len(b.ResponseBody) >= capture.MaxResponseBody {
			c.Comment = "truncated by Gasoline"
		}
	}
}

func sniff(body string) string {
	if t := strings.TrimSpace(body); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		return "application/json"
	}
	if strings.Contains(body, "=") && !strings.ContainsAny(body, " \n") {
		return "application/x-www-form-urlencoded"
	}
	return "text/plain"
}

// headers lists a header map as HAR name/value pairs, sorted by name so an
// archive is stable from one export to the next.
func headers(h map[string]string) []NameValue {
	out := make([]NameValue, 0, len(h))
	for k, v := range h {
		out = append(out, NameValue{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// query lists the URL's query parameters in the order they appear.
func query(raw string) []NameValue {
	out := []NameValue{}
	_, q, ok := strings.Cut(raw, "?")
	if !ok {
		return out
	}
	q, _, _ = strings.Cut(q, "#")
	for _, part := range strings.Split(q, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		out = append(out, NameValue{k, v})
	}
	return out
}
