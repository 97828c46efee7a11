package wire

import "github.com/gasoline-dev/gasoline/features/capture"

// EventPageLeft is the stream event of a tab's document going away (a
// PageLeft): the dashboard marks where the page navigated or reloaded.
const EventPageLeft = "page_left"

// PageLeft is a tab's document gone: why (reload, navigation, tab_closed)
// and when.
type PageLeft struct {
	Tab    int          `json:"tab"`
	Reason string       `json:"reason"`
	TS     capture.Time `json:"ts"`
}
