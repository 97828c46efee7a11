package security

import "github.com/gasoline-dev/gasoline/features/capture"

// scanWebSockets checks socket URLs (credentials, ws:// off this machine)
// and message payloads: what the page sends is read like a request body,
// what it receives like a response body.
func (a *audit) scanWebSockets(events []capture.WSEvent, conns []capture.WSConnection) {
	urls := map[string]bool{}
	check := func(u, page string) {
		if u == "" || urls[u] || !a.match(u) {
			return
		}
		urls[u] = true
		w := where{in: "url", url: RedactURL(u)}
		a.scanURL(w, u)
		if a.enabled(Transport) && scheme(u) == "ws" && !IsLocalhost(u) {
			w.page = RedactURL(page)
			a.add(w, "insecure_websocket", Warning, "", "")
		}
	}
	byID := map[string]string{}
	for _, c := range conns {
		byID[c.ID] = c.URL
		check(c.URL, c.Page)
	}
	for _, e := range events {
		if e.URL != "" {
			byID[e.ID] = e.URL
		}
		u := byID[e.ID]
		check(u, e.Page)
		if e.Event != "message" || e.Data == "" || !a.match(u) {
			continue
		}
		a.scanned.WSMessages++
		b := budget(MaxMatches)
		a.scanSecrets(where{in: "websocket", url: RedactURL(u)}, clip(e.Data), &b, e.Direction == "outgoing")
	}
}
