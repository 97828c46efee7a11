package har

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// schemaDir holds the HAR 1.2 JSON schema from the npm package har-schema
// (installed by `npm ci`, pinned in package.json).
const schemaDir = "../../node_modules/har-schema/lib"

func validator(t testing.TB) *jsonschema.Schema {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("HAR schema missing (run npm ci): %v", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource("https://har-schema.invalid/"+filepath.Base(f), doc); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile("https://har-schema.invalid/har.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(t *testing.T, doc []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(doc)))
	if err != nil {
		t.Fatal(err)
	}
	return validator(t).Validate(v)
}

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func at(ms int) capture.Time { return capture.Time{Time: t0.Add(time.Duration(ms) * time.Millisecond)} }

// traffic is a recorded sign-up session: a page's API calls, one with its
// bodies, one failed, one aborted, a binary download and a body whose
// waterfall entry was evicted.
func traffic() ([]capture.NetworkEntry, []capture.NetworkBody) {
	page := "http://localhost:3000/signup"
	network := []capture.NetworkEntry{
		{TS: at(0), Method: "GET", URL: "http://localhost:3000/api/config?lang=en&q=a%20b", Status: 200, DurationMS: 12.5, Type: "fetch", Size: 40, Page: page},
		{TS: at(900), Method: "POST", URL: "http://localhost:3000/api/signup", Status: 201, DurationMS: 84, Type: "fetch", Size: 52, Page: page},
		{TS: at(950), Method: "GET", URL: "http://localhost:9/api/down", DurationMS: 3, Type: "xhr", Failed: true, Error: "net::ERR_CONNECTION_REFUSED", Page: page},
		{TS: at(960), Method: "GET", URL: "http://localhost:3000/api/slow", DurationMS: 30, Type: "fetch", Aborted: true, Page: page},
		{TS: at(2000), Method: "GET", URL: "http://localhost:3000/logo.png", Status: 200, DurationMS: 5, Type: "fetch", Size: 2048, Page: "http://localhost:3000/welcome"},
	}
	bodies := []capture.NetworkBody{
		{TS: at(901), Method: "POST", URL: "http://localhost:3000/api/signup", Status: 201, DurationMS: 84, ContentType: "application/json",
			RequestBody:     `{"email":"ada@example.com","password":"[redacted]"}`,
			ResponseBody:    `{"id":42,"email":"ada@example.com"}`,
			RequestHeaders:  map[string]string{"content-type": "application/json", "accept": "*/*"},
			ResponseHeaders: map[string]string{"content-type": "application/json", "x-request-id": "r1"}, Page: page},
		{TS: at(2001), Method: "GET", URL: "http://localhost:3000/logo.png", Status: 200, ContentType: "image/png", ResponseBody: "[Binary: 2048 bytes, type: image/png]"},
		{TS: at(3000), Method: "PUT", URL: "http://localhost:3000/api/profile", Status: 204, DurationMS: 9, RequestBody: "name=Ada", Page: "http://localhost:3000/welcome"},
	}
	return network, bodies
}

func TestBuildIsValidHAR12(t *testing.T) {
	network, bodies := traffic()
	b, err := json.Marshal(Build(network, bodies, Options{Version: "1.0.0"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, b); err != nil {
		t.Fatalf("not valid HAR 1.2: %v\n%s", err, b)
	}
}

func TestSchemaRejectsBrokenHAR(t *testing.T) {
	// Proves the validator bites: an entry without timings, and a bad date.
	for _, doc := range []string{
		`{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[{"startedDateTime":"2026-11-22T10:00:00.000Z","time":1,"request":{},"response":{},"cache":{}}]}}`,
		`{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"pages":[{"startedDateTime":"yesterday","id":"p","title":"t","pageTimings":{}}],"entries":[]}}`,
	} {
		if validate(t, []byte(doc)) == nil {
			t.Errorf("schema accepted %s", doc)
		}
	}
}

func TestBuildJoinsBodiesAndKeepsWhatWasCaptured(t *testing.T) {
	network, bodies := traffic()
	l := Build(network, bodies, Options{})
	if l.Log.Version != "1.2" || l.Log.Creator.Name != "Gasoline" || l.Log.Creator.Version != "dev" {
		t.Fatalf("header: %+v", l.Log)
	}
	if len(l.Log.Entries) != 6 {
		t.Fatalf("entries %d, want 6 (5 waterfall + 1 body-only)", len(l.Log.Entries))
	}
	if len(l.Log.Pages) != 2 || l.Log.Pages[0].Title != "http://localhost:3000/signup" || l.Log.Pages[1].ID != "page_2" {
		t.Fatalf("pages: %+v", l.Log.Pages)
	}
	byURL := map[string]Entry{}
	for i, e := range l.Log.Entries {
		byURL[e.Request.Method+" "+e.Request.URL] = e
		if i > 0 && e.StartedDateTime < l.Log.Entries[i-1].StartedDateTime {
			t.Errorf("entry %d out of order", i)
		}
		if e.Timings.Send+e.Timings.Wait+e.Timings.Receive != e.Time {
			t.Errorf("%s: timings do not add up to time", e.Request.URL)
		}
	}
	cfg := byURL["GET http://localhost:3000/api/config?lang=en&q=a%20b"]
	if len(cfg.Request.QueryString) != 2 || cfg.Request.QueryString[1] != (NameValue{"q", "a b"}) || cfg.Time != 12.5 {
		t.Errorf("config: %+v", cfg)
	}
	if cfg.Response.Content.Text != "" || cfg.Response.Content.Size != 40 || cfg.PageRef != "page_1" {
		t.Errorf("a request without a body capture has no text: %+v", cfg.Response.Content)
	}
	s := byURL["POST http://localhost:3000/api/signup"]
	if s.Request.PostData == nil || s.Request.PostData.MimeType != "application/json" || !strings.Contains(s.Request.PostData.Text, `"password":"[redacted]"`) {
		t.Errorf("postData: %+v", s.Request.PostData)
	}
	if s.Response.Content.Text != `{"id":42,"email":"ada@example.com"}` || s.Response.Content.MimeType != "application/json" || s.Response.StatusText != "Created" {
		t.Errorf("response: %+v", s.Response)
	}
	if len(s.Request.Headers) != 2 || s.Request.Headers[0].Name != "accept" || s.Response.Headers[1] != (NameValue{"x-request-id", "r1"}) {
		t.Errorf("headers: %+v %+v", s.Request.Headers, s.Response.Headers)
	}
	if d := byURL["GET http://localhost:9/api/down"]; d.Response.Status != 0 || d.Comment != "failed: net::ERR_CONNECTION_REFUSED" {
		t.Errorf("failed: %+v", d)
	}
	if a := byURL["GET http://localhost:3000/api/slow"]; a.Comment != "aborted" {
		t.Errorf("aborted: %+v", a)
	}
	if p := byURL["GET http://localhost:3000/logo.png"]; p.Response.Content.Text != "" || !strings.Contains(p.Response.Content.Comment, "2048 bytes") || p.PageRef != "page_2" {
		t.Errorf("binary: %+v", p.Response.Content)
	}
	if p := byURL["PUT http://localhost:3000/api/profile"]; p.Request.PostData.MimeType != "application/x-www-form-urlencoded" || p.Time != 9 || p.Response.Status != 204 {
		t.Errorf("body-only entry: %+v", p)
	}
}

func TestBuildMatchesEachBodyOnceAndNearest(t *testing.T) {
	u := "http://localhost:3000/api/items"
	network := []capture.NetworkEntry{
		{TS: at(0), Method: "GET", URL: u, Status: 200},
		{TS: at(1000), Method: "GET", URL: u, Status: 200},
		{TS: at(9000), Method: "GET", URL: u, Status: 500},
	}
	bodies := []capture.NetworkBody{
		{TS: at(1001), Method: "GET", URL: u, Status: 200, ResponseBody: "second"},
		{TS: at(2), Method: "GET", URL: u, Status: 200, ResponseBody: "first"},
		{TS: at(9001), Method: "GET", URL: u, Status: 200, ResponseBody: "not the 500"},
	}
	e := Build(network, bodies, Options{URLFilter: "/items"}).Log.Entries
	got := []string{}
	for _, x := range e {
		got = append(got, x.Response.Content.Text)
	}
	if strings.Join(got, ",") != "first,second,,not the 500" {
		t.Fatalf("bodies: %q", got)
	}
	if n := len(Build(network, bodies, Options{URLFilter: "/nothing"}).Log.Entries); n != 0 {
		t.Fatalf("filter kept %d", n)
	}
}

// A HAR consumer re-opens the archive: it parses back to the same log.
func TestBuildRoundTrips(t *testing.T) {
	network, bodies := traffic()
	l := Build(network, bodies, Options{})
	b, _ := json.Marshal(l)
	var back Log
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if string(b) != string(b2) {
		t.Fatalf("round trip changed the archive")
	}
	if empty, _ := json.Marshal(Build(nil, nil, Options{})); !strings.Contains(string(empty), `"entries":[]`) {
		t.Fatalf("empty archive: %s", empty)
	}
}
