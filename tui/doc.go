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
package tui
