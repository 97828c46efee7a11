package wire

import (
	"encoding/json"

	"github.com/gasoline-dev/gasoline/features/pointing"
)

// EventPointed is the stream event of what the human last pointed the AI
// at and who read it (a Pointed).
const EventPointed = "pointed"

// Point is POST /api/point: the dashboard's selected row, as the
// dashboard read it from the stream, sent to the AI with the human's note.
type Point struct {
	// Kind is console, error, network, websocket, action or audit.
	Kind  string          `json:"kind"`
	Entry json.RawMessage `json:"entry"`
	Note  string          `json:"note,omitempty"`
}

// Element is an element the human picked in the page (POST /point), and
// Box its bounding box.
type (
	Element = pointing.Element
	Box     = pointing.Box
)

// Pointed is the board's state as the dashboard's header shows it.
type Pointed struct {
	Newest *PointedEntry `json:"newest,omitempty"`
	// Streamed is how many streaming sessions a point just reached (in
	// the answer to POST /api/point and the event it makes).
	Streamed int `json:"streamed,omitempty"`
	// Dropped counts entries the board's bound dropped.
	Dropped int `json:"dropped,omitempty"`
}

// PointedEntry is one pointed entry without its body.
type PointedEntry struct {
	ID       uint64   `json:"id"`
	Kind     string   `json:"kind"`
	Summary  string   `json:"summary"`
	Note     string   `json:"note,omitempty"`
	At       string   `json:"at"`
	ReadBy   []string `json:"read_by,omitempty"`
	ReadMore int      `json:"read_by_more,omitempty"`
}
