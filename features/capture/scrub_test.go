package capture

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
)

// Every kind of entry is scrubbed on the way into the store, whatever the
// extension did (an old or foreign extension may send secrets verbatim).
func TestIngestScrubsEveryKind(t *testing.T) {
	s := NewStore()
	page := "https://app.test/home?session_id=S1"
	s.AddLogs([]LogEntry{{Level: "error", Message: "boom", Source: "https://app.test/a.js?token=S2", Page: page}})
	s.AddNetwork([]NetworkEntry{{Method: "GET", URL: "https://api.test/x?access_token=S3", Page: page}})
	s.AddBodies([]NetworkBody{{
		Method: "POST", URL: "https://api.test/login?api_key=S4", Page: page, ContentType: "application/json",
		RequestHeaders:  map[string]string{"Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-Authorization": "Bearer S5"},
		RequestBody:     "user=bob&password=S6",
		ResponseBody:    `{"ok":true,"access_token":"S7","refresh_token":"S8"}`,
		ResponseHeaders: map[string]string{"Set-Cookie": "sid=S9"},
	}})
	s.AddWSEvents([]WSEvent{
		{Event: "open", ID: "w", URL: "wss://api.test/ws?token=S10", Page: page},
		{Event: "message", ID: "w", Direction: "outgoing", Data: `{"type":"auth","token":"S11"}`, Page: page},
	})
	s.AddActions([]Action{
		{Type: "navigation", URL: "https://app.test/cb#access_token=S12", Page: page},
		{Type: "input", Selector: `input[name="pass"]`, InputType: "text", Value: "S13"},
	})
	s.SetPage(Page{TabID: 1, URL: "https://app.test/?code=ok&client_secret=S14"})

	p, _ := s.Page()
	all, _ := json.Marshal([]any{s.Logs(Query{}), s.Errors(Query{}), s.Network(Query{}), s.Bodies(Query{}),
		s.WSEvents(Query{}), s.WSConnections(Query{}), s.Actions(Query{}), p})
	for i := 1; i <= 14; i++ {
		if secret := "S" + itoa(i); strings.Contains(string(all), `=`+secret) || strings.Contains(string(all), `"`+secret+`"`) ||
			strings.Contains(string(all), " "+secret) {
			t.Errorf("secret %s stored: %s", secret, all)
		}
	}
	if n := strings.Count(string(all), "[redacted]"); n < 14 {
		t.Errorf("want every secret replaced by [redacted], found %d: %s", n, all)
	}
	b := s.Bodies(Query{}).Entries[0]
	if !json.Valid([]byte(b.ResponseBody)) || b.RequestHeaders["x-forwarded-authorization"] != "[redacted]" {
		t.Errorf("body: %+v", b)
	}
}

func BenchmarkSanitizeBody(b *testing.B) {
	body := NetworkBody{Method: "POST", URL: "https://api.test/v1/orders?page=2", ContentType: "application/json",
		RequestHeaders: map[string]string{"content-type": "application/json", "authorization": "Bearer x"},
		RequestBody:    `{"items":[{"sku":"A-1","qty":2}],"card_number":"4111"}`,
		ResponseBody:   strings.Repeat(`{"id":1,"name":"widget","price":9.5},`, 100)}
	b.ReportAllocs()
	for b.Loop() {
		c := body
		c.RequestHeaders = map[string]string{"content-type": "application/json", "authorization": "Bearer x"}
		c.sanitize()
	}
}

// Headers come to the same whether they arrive as the extension sends them
// (lower-case names within the caps: redacted where they are) or not.
func TestSanitizeHeaders(t *testing.T) {
	long := strings.Repeat("v", 600)
	for _, c := range []struct {
		in, want map[string]string
	}{
		{map[string]string{"accept": "*/*", "x-api-key": "k", "cookie": ""}, map[string]string{"accept": "*/*", "x-api-key": "[redacted]", "cookie": ""}},
		{map[string]string{"Accept": "*/*", "X-Api-Key": "k"}, map[string]string{"accept": "*/*", "x-api-key": "[redacted]"}},
		{map[string]string{"x-Ü": "e"}, map[string]string{"x-ü": "e"}},
		{map[string]string{"x-long": long}, map[string]string{"x-long": long[:500]}},
		{map[string]string{strings.Repeat("h", 120): "v"}, map[string]string{strings.Repeat("h", 100): "v"}},
	} {
		if got := sanitizeHeaders(maps.Clone(c.in)); !maps.Equal(got, c.want) {
			t.Errorf("sanitizeHeaders(%.60v) = %.60v, want %.60v", c.in, got, c.want)
		}
	}
	many := map[string]string{}
	for i := range MaxHeaders + 5 {
		many[fmt.Sprintf("x-h%d", i)] = "v"
	}
	if got := sanitizeHeaders(many); len(got) != MaxHeaders {
		t.Errorf("%d headers kept of %d, want %d", len(got), len(many), MaxHeaders)
	}
}
