package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A page load's resource rows reach the dashboard's stream (the newest
// loads on connect, each new one as it comes) with their URLs scrubbed,
// and the rows a bound left out are a loss health counts.
func TestPageLoadRowsStreamedAndLossCounted(t *testing.T) {
	_, base := startServer(t)
	row := `{"url":"http://app.test/a.js?token=SECRET1","type":"script","start":12,"duration":30,"size":900,"wait":8}`
	body := fmt.Sprintf(`{"entries":[{"ts":1763800000000,"origin":1763799999000,"url":"http://app.test/","tab":3,"load_time":300,
		"resources":[%s,{"url":"http://app.test/","type":"navigation","start":0,"duration":50}],"resources_dropped":4}]}`, row)
	if code, out := do(t, base, call{method: "POST", path: "/performance", body: body}); code != 200 || out["accepted"] != float64(1) {
		t.Fatalf("%d %v", code, out)
	}
	_, out := do(t, base, call{method: "GET", path: "/health"})
	if !strings.Contains(mustJSON(out["lost"]), `"kind":"resource","lost":4`) {
		t.Errorf("health lost: %s, want the 4 rows left out", mustJSON(out["lost"]))
	}

	r := openStream(t, base, "")
	data := r.until(t, "pageload", `"type":"script"`)
	if strings.Contains(data, "SECRET1") || !strings.Contains(data, `"resources_dropped":4`) {
		t.Errorf("page load on connect: %s", data)
	}
	do(t, base, call{method: "POST", path: "/performance", body: `{"entries":[{"url":"http://app.test/next","load_time":200,
		"resources":[{"url":"http://app.test/b.css","type":"link","start":5,"duration":9}]}]}`})
	r.until(t, "pageload", "b.css")
}

// Requests made after the sample join their load on the dashboard's
// stream; those of a load the server does not hold are counted as lost.
func TestLaterRowsJoinTheirLoad(t *testing.T) {
	_, base := startServer(t)
	r := openStream(t, base, "")
	do(t, base, call{method: "POST", path: "/performance", body: `{"entries":[{"ts":1763800000000,"origin":1763799999000,"url":"http://app.test/","tab":3,"load_time":300,
		"resources":[{"url":"http://app.test/","type":"navigation","start":0,"duration":50}]}]}`})
	r.until(t, "pageload", `"type":"navigation"`)
	code, out := do(t, base, call{method: "POST", path: "/performance", body: `{"entries":[{"ts":1763800005000,"origin":1763799999000,"url":"http://app.test/","tab":3,"more":true,
		"resources":[{"url":"http://app.test/lazy.png?token=SECRET2","type":"img","start":5000,"duration":20}]},
		{"ts":1763800005000,"origin":` + sinceStart() + `,"url":"http://app.test/","tab":3,"more":true,"resources":[{"url":"http://app.test/gone.png","type":"img","start":1}]}]}`})
	if code != 200 || out["accepted"] != float64(2) {
		t.Fatalf("%d %v", code, out)
	}
	data := r.until(t, "pageload", "lazy.png")
	if !strings.Contains(data, `"type":"navigation"`) || strings.Contains(data, "SECRET2") || strings.Contains(data, `"more"`) {
		t.Errorf("the load with its later row: %s", data)
	}
	_, h := do(t, base, call{method: "GET", path: "/health"})
	if !strings.Contains(mustJSON(h["lost"]), `"kind":"resource","lost":1`) {
		t.Errorf("health lost: %s, want the row of the load not held", mustJSON(h["lost"]))
	}
}

// A later batch's vitals update the load they belong to: the dashboard's
// stream and observe performance read the raised INP; an update of a load
// the server does not hold is a loss health counts, not a load.
func TestLaterVitalsUpdateTheirLoad(t *testing.T) {
	s, base := startServer(t)
	ai := mcpClient(t, s)
	r := openStream(t, base, "")
	do(t, base, call{method: "POST", path: "/performance", body: `{"entries":[{"ts":1763800000000,"origin":1763799999000,"url":"http://app.test/","tab":3,"load_time":300,"inp":56,"cls":0.01}]}`})
	r.until(t, "pageload", `"inp":56`)
	code, out := do(t, base, call{method: "POST", path: "/performance", body: `{"entries":[
		{"ts":1763800005000,"origin":1763799999000,"url":"http://app.test/#pushed","tab":3,"more":true,"resources":[],"inp":312.4,"cls":0.2},
		{"ts":1763800005000,"origin":` + sinceStart() + `,"url":"http://app.test/","tab":3,"more":true,"resources":[],"inp":500}]}`})
	if code != 200 || out["accepted"] != float64(2) {
		t.Fatalf("%d %v", code, out)
	}
	r.until(t, "pageload", `"inp":312.4`)
	got, isErr := callTool(t, ai, "observe", map[string]any{"what": "performance"})
	if p := mustJSON(got["pages"]); isErr || got["count"] != float64(1) || !strings.Contains(p, `"cls":0.2,"inp":312`) || strings.Contains(p, `"more"`) {
		t.Errorf("observe performance: %s", mustJSON(got))
	}
	_, h := do(t, base, call{method: "GET", path: "/health"})
	if !strings.Contains(mustJSON(h["lost"]), `"kind":"vitals","lost":1`) {
		t.Errorf("health lost: %s, want the update of the load not held", mustJSON(h["lost"]))
	}
}

// sinceStart is a page load's origin (Unix ms) after the server started: a
// load it could have held.
func sinceStart() string { return strconv.FormatInt(time.Now().UnixMilli(), 10) }

// Issue 58 row 14: after a restart, the later rows and vitals of a load
// that began before this server did (its predecessor held it) are not a
// loss: health says nothing was lost.
func TestPredecessorsLoadIsNoLoss(t *testing.T) {
	_, base := startServer(t)
	before := strconv.FormatInt(time.Now().Add(-time.Minute).UnixMilli(), 10)
	code, out := do(t, base, call{method: "POST", path: "/performance", body: `{"entries":[
		{"ts":1763800005000,"origin":` + before + `,"url":"http://app.test/","tab":3,"more":true,"resources":[],"inp":500},
		{"ts":1763800005000,"origin":` + before + `,"url":"http://app.test/","tab":3,"more":true,"resources":[{"url":"http://app.test/a.png","type":"img","start":1}]}]}`})
	if code != 200 || out["accepted"] != float64(2) {
		t.Fatalf("%d %v", code, out)
	}
	if _, h := do(t, base, call{method: "GET", path: "/health"}); h["lost"] != nil {
		t.Errorf("health lost: %s", mustJSON(h["lost"]))
	}
}
