package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/doctor"
	"github.com/gasoline-dev/gasoline/features/streaming"
)

// sampleNow is the fixed clock of every golden.
var sampleNow = time.Date(2026, 1, 24, 15, 32, 10, 0, time.UTC)

func at(sec float64) capture.Time {
	return capture.Time{Time: sampleNow.Add(time.Duration(sec * float64(time.Second)))}
}

// sampleWSID is a connection id as the extension makes them: a UUID.
const sampleWSID = "5f0c2a9e-3b1d-4c7e-9a21-8d6f4e2b7c10"

// sampleStack is a long exception's stack, as the page reports it.
const sampleStack = `TypeError: Cannot read properties of undefined (reading 'total')
    at Checkout.render (http://localhost:3000/src/Checkout.tsx:88:21)
    at renderWithHooks (http://localhost:3000/node_modules/.vite/deps/react-dom.js:12171:26)
    at updateFunctionComponent (http://localhost:3000/node_modules/.vite/deps/react-dom.js:14577:28)
    at beginWork (http://localhost:3000/node_modules/.vite/deps/react-dom.js:15912:22)`

// sampleModel is a dashboard at 100×30 showing a shop's checkout going
// wrong while claude-code watches it.
func sampleModel() *Model { return sampleModelAt(100, 30) }

// sampleModelAt is sampleModel at another size.
func sampleModelAt(w, height int) *Model {
	m := New(Config{Now: func() time.Time { return sampleNow }})
	changed := sampleNow.Add(-2 * time.Minute)
	pilot := &Pilot{Enabled: true, Source: "extension_poll", ExtensionConnected: true}
	h := Health{Service: "gasoline", Version: "0.1.0", UptimeS: 600, Clients: []string{"claude-code", "cursor"},
		Buffers: map[string]capture.Fill{"logs": {Count: 20, Cap: 1000}, "errors": {Count: 3, Cap: 200},
			"network": {Count: 8, Cap: 500}, "websocket_events": {Count: 7, Cap: 200},
			"network_bodies": {Count: 3, Cap: 100}, "actions": {Count: 12, Cap: 200}},
		Page:     &capture.Page{TabID: 412, URL: "http://localhost:3000/checkout", Title: "Checkout"},
		AuditLog: "/home/dev/.gasoline/audit.jsonl", Pilot: pilot}
	h.Extension.Connected, h.Extension.LastSeenMS = true, 1800
	msgs := []tea.Msg{
		tea.WindowSizeMsg{Width: w, Height: height},
		ConnMsg{Phase: Hosting, Addr: "127.0.0.1:7890"},
		StatusMsg(h),
		OverridesMsg{Settings: []Setting{
			{Name: "log_level", Default: "error", Value: "all", Agent: "claude-code", ChangedAt: &changed},
			{Name: "ws_mode", Default: "lifecycle", Value: "messages", Agent: "claude-code", ChangedAt: &changed},
			{Name: "network_bodies", Default: true, Revoked: true},
			{Name: "screenshot_on_error", Default: false},
			{Name: "action_replay", Default: true},
		}},
		EntriesMsg{
			Logs: []capture.LogEntry{
				{TS: at(-19.6), Level: "debug", Message: "[vite] connecting..."},
				{TS: at(-19.5), Level: "info", Message: "[vite] connected."},
				{TS: at(-18.2), Level: "log", Message: "Router ready", Args: []string{"/cart"}},
				{TS: at(-17.0), Level: "log", Message: "fetching cart for user", Args: []string{"u_8f2c"}},
				{TS: at(-16.4), Level: "info", Message: "feature flags loaded", Args: []string{"{newCheckout: true, applePay: false}"}},
				{TS: at(-15.9), Level: "warn", Message: "React Router Future Flag Warning: v7_startTransition"},
				{TS: at(-14.1), Level: "log", Message: "Cart mounted (3 items)"},
				{TS: at(-13.0), Level: "log", Message: "navigate /cart → /checkout"},
				{TS: at(-12.2), Level: "debug", Message: "form state", Args: []string{"{email: 'dev@example.com', zip: '94107'}"}},
				{TS: at(-11.7), Level: "log", Message: "shipping options requested for 94107"},
				{TS: at(-10.4), Level: "warn", Message: "Stripe.js: you may test your integration over HTTP, live mode needs HTTPS"},
				{TS: at(-9.8), Level: "info", Message: "[vite] hot updated: /src/Checkout.tsx"},
				{TS: at(-9.1), Level: "debug", Message: "cart hydrated", Args: []string{"{items: 3}"}},
				{TS: at(-8.4), Level: "log", Message: "Checkout mounted"},
				{TS: at(-7.9), Level: "warn", Message: "Each child in a list should have a unique \"key\" prop.", Source: "http://localhost:3000/src/Cart.tsx:41:7"},
				{TS: at(-6.2), Level: "log", Message: "applying coupon SAVE10"},
				{TS: at(-5.0), Level: "error", Message: "POST /api/checkout 500 (Internal Server Error)"},
				{TS: at(-4.9), Level: "error", Kind: "exception", Message: "TypeError: Cannot read properties of undefined (reading 'total')", Source: "http://localhost:3000/src/Checkout.tsx:88:21",
					Stack: sampleStack, TabID: 412, Page: "http://localhost:3000/checkout"},
				{TS: at(-3.3), Level: "error", Kind: "rejection", Message: "Error: payment intent missing", Screenshot: "2026-01-24T15-32-06_tab412.png"},
				{TS: at(-1.0), Level: "log", Message: "retrying in 2s\n(attempt 2)"},
			},
			Network: []capture.NetworkEntry{
				{TS: at(-9.5), Method: "GET", URL: "http://localhost:3000/api/cart", Status: 200, DurationMS: 42},
				{TS: at(-9.4), Method: "GET", URL: "http://localhost:3000/api/user/me", Status: 304, DurationMS: 8},
				{TS: at(-8.0), Method: "GET", URL: "https://cdn.example.com/fonts/inter.woff2", Status: 200, DurationMS: 133},
				{TS: at(-6.1), Method: "POST", URL: "http://localhost:3000/api/coupon", Status: 200, DurationMS: 87},
				{TS: at(-5.1), Method: "POST", URL: "http://localhost:3000/api/checkout", Status: 500, DurationMS: 1240},
				{TS: at(-4.0), Method: "GET", URL: "http://localhost:3000/api/shipping?zip=94107", Status: 404, DurationMS: 12},
				{TS: at(-2.5), Method: "GET", URL: "https://analytics.example.com/collect", Failed: true, Error: "net::ERR_BLOCKED_BY_CLIENT"},
				{TS: at(-1.2), Method: "POST", URL: "http://localhost:3000/api/checkout", Aborted: true, DurationMS: 300},
			},
			WS: []capture.WSEvent{
				{TS: at(-9.0), Event: "open", ID: "ws-1", URL: "ws://localhost:3000/live"},
				{TS: at(-8.9), Event: "message", ID: "ws-1", Direction: "outgoing", Data: `{"type":"subscribe","channel":"cart"}`, Size: 38},
				{TS: at(-8.8), Event: "message", ID: "ws-1", Direction: "incoming", Data: `{"type":"cart","items":3,"total":59.97}`, Size: 39},
				{TS: at(-7.0), Event: "open", ID: "ws-2", URL: "ws://localhost:3000/__vite_hmr"},
				{TS: at(-5.5), Event: "message", ID: "ws-1", Direction: "incoming", Data: `{"type":"price","sku":"A-12","price":19.99}`, Size: 44},
				{TS: at(-3.0), Event: "close", ID: "ws-2", Code: 1006, Reason: "abnormal"},
				{TS: at(-2.0), Event: "message", ID: "ws-1", Direction: "incoming", Data: strings.Repeat("x", 60), Size: 4096, Truncated: true},
				{TS: at(-1.8), Event: "open", ID: sampleWSID, URL: "wss://push.example.com/socket"},
				{TS: at(-1.5), Event: "message", ID: sampleWSID, Direction: "incoming", Data: `{"type":"hello","session":"s_91"}`, Size: 33},
				{TS: at(-0.9), Event: "error", ID: sampleWSID},
				{TS: at(-0.8), Event: "close", ID: sampleWSID, Code: 1006},
			},
			Actions: []capture.Action{
				{TS: at(-14.0), Type: "click", Selector: "a[href=\"/checkout\"]", Text: "Checkout"},
				{TS: at(-13.0), Type: "navigation", URL: "http://localhost:3000/checkout"},
				{TS: at(-7.0), Type: "input", Selector: "input#coupon", Value: "SAVE10", InputType: "text"},
				{TS: at(-6.3), Type: "click", Selector: "button.apply-coupon", Text: "Apply"},
				{TS: at(-5.9), Type: "click", Selector: "#retry", Text: "Retry", Source: "ai"},
				{TS: at(-5.2), Type: "submit", Selector: "form#checkout"},
			},
			Bodies: []capture.NetworkBody{
				{TS: at(-5.1), Method: "POST", URL: "http://localhost:3000/api/checkout", Status: 500, ContentType: "application/json",
					RequestHeaders:  map[string]string{"content-type": "application/json", "authorization": "[redacted]"},
					RequestBody:     `{"cart":"c_77","coupon":"SAVE10","items":[{"sku":"A-12","qty":1}]}`,
					ResponseHeaders: map[string]string{"content-type": "application/json"},
					ResponseBody:    `{"error":"intent_missing","detail":"payment intent was not created"}`},
			},
		},
		AuditMsg{Path: "/home/dev/.gasoline/audit.jsonl", Lines: []audit.Line{
			auditLine(audit.Event{TS: "2026-01-24T15:29:58.120Z", Event: "capture_override", Setting: "network_bodies", From: true, To: false, Source: "ai", Agent: "claude-code"}),
			auditLine(audit.Event{TS: "2026-01-24T15:30:02.440Z", Event: "capture_revoked", Setting: "network_bodies", From: false, To: true, Source: "human", Agent: "human"}),
			auditLine(audit.Event{TS: "2026-01-24T15:30:10.003Z", Event: "capture_override", Setting: "log_level", From: "error", To: "all", Source: "ai", Agent: "claude-code"}),
			auditLine(audit.Event{TS: "2026-01-24T15:30:10.003Z", Event: "capture_override", Setting: "ws_mode", From: "lifecycle", To: "messages", Source: "ai", Agent: "claude-code"}),
			auditLine(audit.Event{TS: "2026-01-24T15:31:00.000Z", Event: "pilot_blocked", Source: "human", Agent: "human"}),
			auditLine(audit.Event{TS: "2026-01-24T15:31:30.000Z", Event: "pilot_unblocked", Source: "human", Agent: "human"}),
			auditLine(audit.Event{TS: "2026-01-24T15:31:45.500Z", Event: "interact", Action: "click", Selector: "button#pay", Result: "ok", Source: "ai", Agent: "cursor"}),
			auditLine(audit.Event{TS: "2026-01-24T15:31:48.000Z", Event: "interact", Action: "execute_js", Result: "ok", Source: "ai", Agent: "claude-code",
				Script: "const total = document.querySelector('#total').textContent;\nconsole.log('total', total);\nreturn total;"}),
			auditLine(audit.Event{TS: "2026-01-24T15:31:50.000Z", Event: "capture_reset", Reason: "session_end", Source: "server"}),
			auditLine(audit.Event{TS: "2026-01-24T15:31:55.000Z", Event: "capture_override", Setting: "ws_mode", From: "lifecycle", To: "off", Source: "ai", Agent: "other-port", Port: 7891}),
			audit.ParseLine("not json at all"),
		}},
	}
	for _, msg := range msgs {
		m.Update(msg)
	}
	return m
}

func auditLine(e audit.Event) audit.Line {
	if e.Port == 0 {
		e.Port = 7890 // this dashboard's server
	}
	return audit.Line{Raw: "(sample)", Event: e, Parsed: true}
}

// goldenSizes are the terminals every pane is drawn at: the smallest the
// dashboard is made for, a common one, and a large one.
var goldenSizes = [][2]int{{80, 24}, {120, 40}, {200, 60}}

// TestGoldenPanes renders every pane and view at each of goldenSizes with
// fixed data.
func TestGoldenPanes(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"console", nil},
		{"network", []string{"2"}},
		{"websocket", []string{"3"}},
		{"actions", []string{"4"}},
		{"overrides", []string{"5", "down"}},
		{"overrides_rules", []string{"rules", "5", "end"}},
		{"audit", []string{"6"}},
		{"audit_all", []string{"6", "A"}},
		{"approval", []string{"approval", "down", "down"}},
		{"help", []string{"?"}},
		{"filter", []string{"2", "/", "C", "h", "e", "c", "k"}},
		{"paused", []string{"space"}},
		{"streamed", nil},
		{"streamed_detail", nil},
		{"cleared", []string{"c"}},
		{"detail_console", []string{"up", "up", "enter"}},
		{"detail_network", []string{"2", "up", "up", "up", "enter"}},
		{"detail_websocket", []string{"3", "up", "up", "enter"}},
		{"detail_audit", []string{"6", "up", "enter"}},
		{"detail_override", []string{"5", "enter"}},
		{"detail_approval", []string{"approval", "enter"}},
		{"detail_action", []string{"4", "up", "up", "enter"}},
		{"doctor", []string{"doctor"}},
		{"doctor_detail", []string{"doctor", "D"}},
		{"extension_gone", []string{"gone"}},
		{"network_loads", []string{"load", "2"}},
		{"network_sorted", []string{"load", "2", "o"}},
		{"pageload", []string{"load", "2", "w"}},
		{"detail_waterfall", []string{"load", "2", "o", "o", "up", "up", "enter"}},
		{"detail_waterfall_phases", []string{"load", "2", "up", "up", "up", "enter"}},
		{"detail_waterfall_fetch", []string{"timed", "2", "enter"}},
		{"copy_network", []string{"2", "up", "up", "up", "Y"}},
		{"copy_console", []string{"up", "up", "Y"}},
		{"aitabs", []string{"aitabs", "4"}},
		{"aitabs_one", []string{"aitabs", "t"}},
		{"filter_fields", append([]string{"2", "/"}, strings.Split("status>=400 method:POST", "")...)},
	} {
		for _, size := range goldenSizes {
			w, h := size[0], size[1]
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, w, h), func(t *testing.T) {
				m := sampleModelAt(w, h)
				for _, k := range tc.keys {
					switch k {
					case "approval":
						m.Update(sampleApproval())
					case "rules":
						m.Update(sampleRules())
					case "doctor":
						m.Update(sampleDoctor())
					case "gone":
						m.Update(sampleExtensionGone())
					case "load":
						m.Update(samplePageLoad())
					case "timed":
						m.Update(sampleTimedFetch())
					case "aitabs":
						for _, msg := range sampleAITabs() {
							m.Update(msg)
						}
					default:
						m.Update(keyMsg(k))
					}
				}
				if strings.HasPrefix(tc.name, "streamed") {
					m.Update(StreamedMsg{Agent: "claude-code", Notification: streaming.Notification{Category: streaming.NetworkErrors,
						Severity: streaming.SeverityError, Message: "Server error: POST /api/checkout → 500", Timestamp: at(-3)}})
				}
				if tc.name == "streamed_detail" {
					m.Update(keyMsg("enter"))
				}
				if tc.name == "paused" {
					m.Update(EntriesMsg{Logs: []capture.LogEntry{{TS: at(0), Level: "error", Message: "arrived while paused"}}})
				}
				got := plainView(m.View())
				if n := strings.Count(got, "\n") + 1; n != h {
					t.Errorf("%d lines, want %d", n, h)
				}
				for i, l := range strings.Split(got, "\n") {
					if lw := lipgloss.Width(l); lw > w {
						t.Errorf("line %d is %d cells wide, past %d: %q", i+1, lw, w, l)
					}
				}
				golden(t, fmt.Sprintf("pane_%s_%dx%d", tc.name, w, h), got)
			})
		}
	}
}

// sampleExtensionGone is the sample's server 36 s after the extension
// went away with the pilot on: the pilot is unknown, not its last report.
func sampleExtensionGone() StatusMsg {
	h := *sampleModel().health
	h.Extension.Connected, h.Extension.LastSeenMS = false, 36000
	h.Pilot = &Pilot{State: "unknown", Source: "stale", LastPollAgo: new(36.0)}
	return StatusMsg(h)
}

// sampleDoctor is a doctor's report with two problems and a warning.
func sampleDoctor() DoctorMsg {
	return DoctorMsg{Problems: 2, Checks: []doctor.Check{
		{Name: "port", Status: doctor.OK, Detail: "127.0.0.1:7890 is held by Gasoline"},
		{Name: "client:zed", Status: doctor.Warn, Detail: "~/.config/zed/settings.json could not be read", Fix: "gasoline setup --client zed"},
		{Name: "extension", Status: doctor.Fail, Detail: "connected, but version 0.0.9 is loaded and this gasoline ships 0.1.0",
			Fix: "gasoline setup, then click Reload on Gasoline in chrome://extensions"},
		{Name: "audit_log", Status: doctor.Fail, Detail: "/home/dev/.gasoline/audit.jsonl is not writable: permission denied",
			Fix: "chmod u+w /home/dev/.gasoline/audit.jsonl"},
	}}
}

// TestREADMEShowsTheRealDashboard keeps the README's captures honest: the
// console golden verbatim, and the table of the Overrides golden.
func TestREADMEShowsTheRealDashboard(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	console, err := os.ReadFile("../testdata/tui/pane_console_120x40.golden")
	if err != nil {
		t.Fatal(err)
	}
	overrides, err := os.ReadFile("../testdata/tui/pane_overrides_120x40.golden")
	if err != nil {
		t.Fatal(err)
	}
	table := strings.Join(strings.Split(string(overrides), "\n")[4:13], "\n")
	if !strings.Contains(string(readme), string(console)) || !strings.Contains(string(readme), table) {
		t.Errorf("README.md's dashboard captures are not testdata/tui/pane_console_120x40.golden and pane_overrides_120x40.golden; paste them in")
	}
}

// sampleApproval is an execute_js waiting for the human, with a script
// longer than the overlay, and a second request behind it.
func sampleApproval() ApprovalsMsg {
	var script []string
	for i := 1; i <= 40; i++ {
		script = append(script, fmt.Sprintf("const line%d = document.querySelectorAll('li').length + %d;", i, i))
	}
	return ApprovalsMsg{Mode: "ask", Pending: []approval.Request{
		{ID: 7, Agent: "claude-code", Action: "execute_js", Script: strings.Join(script, "\n"), Tab: 412,
			URL: "http://localhost:3000/checkout", Origin: "http://localhost:3000", At: sampleNow.Add(-5 * time.Second), Deadline: sampleNow.Add(55 * time.Second)},
		{ID: 8, Agent: "claude-code", Action: "highlight", Selector: "#pay", At: sampleNow, Deadline: sampleNow.Add(time.Minute)},
	}}
}

// sampleRules is two approval rules the human made with a: one made 3
// minutes ago, one about to expire.
func sampleRules() ApprovalsMsg {
	return ApprovalsMsg{Mode: "ask", Rules: []approval.Rule{
		{ID: 2, Agent: "claude-code", Action: "execute_js", Origin: "http://localhost:3000",
			Made: sampleNow.Add(-3 * time.Minute), Expires: sampleNow.Add(27 * time.Minute)},
		{ID: 3, Agent: "cursor", Action: "highlight", Origin: "https://staging.shop.test",
			Made: sampleNow.Add(-29 * time.Minute), Expires: sampleNow.Add(40 * time.Second)},
	}}
}
