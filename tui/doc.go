// Package tui is Gasoline's terminal dashboard: a live view of what the
// browser does and what the AI changed, with the human's veto one key away.
//
// The dashboard is a client of the server's HTTP API and nothing else — the
// /events/stream SSE feed plus small REST calls — so it behaves the same
// whether the server runs in this process or in a `gasoline --mcp` started by
// an AI client. The one thing it reads directly is the audit log file, which
// it follows with audit.Tail, beside the writer whose rotations it tracks.
//
// Outside events (SSE frames, audit lines, server log lines, connection
// changes) reach the bubbletea model as typed messages, coalesced into
// batches at most every [BatchEvery] so a flood of browser events cannot
// starve key presses.
//
// The root Model (model.go) holds components and the state they share: the
// panes (panes.go: stream.go's streams, netpane.go, wspane.go, overrides.go,
// auditpane.go) and the pop-ups over them (filterbar.go, point.go,
// copymenu.go, approval.go, decisions.go, origins.go, detail.go). Each owns
// its bubbles/key bindings, its help, an Update that says whether it took a
// key, and a View; keypress.go offers a key to the pop-ups in order, then
// to the root's own keys, then to the active pane, and builds the help bar
// from what has the focus.
package tui
