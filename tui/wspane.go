package tui

import (
	"fmt"
	"strings"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// maxSockets bounds the connections the WebSocket pane remembers.
const maxSockets = 64

// wsPane is the WebSocket stream with a line of the connections above it.
type wsPane struct {
	*streamPane
	socks []*socket // oldest first
}

// socket is one connection as the store tracks it (capture's track): open
// when first seen, then as its last open, close or error says. A message
// never opens it again: a page that left has its sockets closed at once,
// while its last messages are still on their way.
type socket struct {
	id, url string
	open    bool
	msgs    int
}

func newWSPane() *wsPane {
	p := &wsPane{streamPane: newStreamPane("WebSocket", fmt.Sprintf(wsFormat, "TIME", "EVENT", "SOCKET", "DATA"),
		"No WebSocket traffic yet. Connections appear here; messages too when ws_mode is \"messages\".")}
	p.order = inTimeOrder
	return p
}

func (p *wsPane) addEvents(es []capture.WSEvent) {
	rows := make([]row, len(es))
	for i, e := range es {
		s := p.socket(e.ID)
		rows[i] = wsRow(e, s.url)
		if e.URL != "" {
			s.url = e.URL
		}
		switch e.Event {
		case "open":
			s.open = true
		case "close", "error":
			s.open = false
		case "message":
			s.msgs++
		}
	}
	p.add(rows)
}

func (p *wsPane) socket(id string) *socket {
	for _, s := range p.socks {
		if s.id == id {
			return s
		}
	}
	s := &socket{id: id, open: true}
	p.socks = append(p.socks, s)
	if len(p.socks) > maxSockets {
		p.socks = p.socks[1:]
	}
	return s
}

// SetSize leaves a line for the connections.
func (p *wsPane) SetSize(w, h int) { p.streamPane.SetSize(w, h-1) }

// Clear forgets closed connections along with the rows.
func (p *wsPane) Clear() {
	p.streamPane.Clear()
	open := p.socks[:0]
	for _, s := range p.socks {
		if s.open {
			open = append(open, s)
		}
	}
	p.socks = open
}

// View puts the open connections above the stream.
func (p *wsPane) View() string {
	var open []string
	for _, s := range p.socks {
		if s.open {
			open = append(open, fmt.Sprintf("%s %s (%d msgs)", clean(s.id), clean(s.url), s.msgs))
		}
	}
	head := styleDim.Render("no open connections")
	if len(open) > 0 {
		head = styleOK.Render(fit(fmt.Sprintf("%d open: %s", len(open), strings.Join(open, " · ")), p.width))
	}
	return head + "\n" + p.streamPane.View()
}
