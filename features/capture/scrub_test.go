package capture

import (
	"encoding/json"
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
