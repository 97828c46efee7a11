package browser

import (
	"strings"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// DOM query limits (the server enforces them whatever the page sent).
const (
	MaxMatches      = 50
	MaxDepth        = 5
	DefaultDepth    = 3
	MaxElementText  = 500
	MaxHeadings     = 50
	MaxHeadingText  = 200
	MaxAttributes   = 30
	MaxAttributeLen = 500
)

// DOMParams are the arguments of analyze{target:"dom"}.
type DOMParams struct {
	Selector        string   `json:"selector"`
	IncludeStyles   bool     `json:"include_styles,omitempty"`
	IncludeChildren bool     `json:"include_children,omitempty"`
	MaxDepth        int      `json:"max_depth,omitempty"`
	Properties      []string `json:"properties,omitempty"`
}

// Check validates and normalises the parameters.
func (p *DOMParams) Check() error {
	if strings.TrimSpace(p.Selector) == "" {
		return problem.New(problem.InvalidParam, "selector is required, e.g. \"#app .item\"")
	}
	if p.MaxDepth == 0 {
		p.MaxDepth = DefaultDepth
	}
	if p.MaxDepth < 1 || p.MaxDepth > MaxDepth {
		return problem.New(problem.InvalidParam, "max_depth must be between 1 and %d", MaxDepth)
	}
	if !p.IncludeChildren {
		p.MaxDepth = 0
	}
	return nil
}

// Box is an element's bounding client rect in CSS pixels.
type Box struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Size is a width and height in CSS pixels.
type Size struct {
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Point is a position in CSS pixels.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Element is one matched element, or a child of one.
type Element struct {
	Selector      string            `json:"selector,omitempty"`
	Tag           string            `json:"tag"`
	Attributes    map[string]string `json:"attributes,omitempty"`
	Text          string            `json:"text,omitempty"`
	TextTruncated bool              `json:"textTruncated,omitempty"`
	BoundingBox   *Box              `json:"boundingBox,omitempty"`
	Visible       *bool             `json:"visible,omitempty"`
	Styles        map[string]string `json:"styles,omitempty"`
	Children      []Element         `json:"children,omitempty"`
}

// DOMResult is the answer to a DOM query.
type DOMResult struct {
	URL           string    `json:"url,omitempty"`
	Title         string    `json:"title,omitempty"`
	MatchCount    int       `json:"matchCount"`
	ReturnedCount int       `json:"returnedCount"`
	Matches       []Element `json:"matches,omitempty"`
}

// Enforce applies the limits to an answer from the page.
func (r *DOMResult) Enforce(depth int) {
	if len(r.Matches) > MaxMatches {
		r.Matches = r.Matches[:MaxMatches]
	}
	for i := range r.Matches {
		r.Matches[i].enforce(depth)
	}
	r.ReturnedCount = len(r.Matches)
	r.MatchCount = max(r.MatchCount, r.ReturnedCount)
}

func (e *Element) enforce(depth int) {
	if len(e.Text) > MaxElementText {
		e.Text, e.TextTruncated = capture.Truncate(e.Text, MaxElementText), true
	}
	if len(e.Attributes) > MaxAttributes {
		n := 0
		for k := range e.Attributes {
			if n++; n > MaxAttributes {
				delete(e.Attributes, k)
			}
		}
	}
	for k, v := range e.Attributes {
		e.Attributes[k] = capture.Truncate(v, MaxAttributeLen)
	}
	if depth <= 0 {
		e.Children = nil
	}
	for i := range e.Children {
		e.Children[i].enforce(depth - 1)
	}
}

// Form is a form on the page: field names, never values.
type Form struct {
	ID     string   `json:"id,omitempty"`
	Name   string   `json:"name,omitempty"`
	Action string   `json:"action,omitempty"`
	Method string   `json:"method,omitempty"`
	Fields []string `json:"fields,omitempty"`
}

// Heading is one h1–h6.
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
}

// PageInfo summarises the page without a selector.
type PageInfo struct {
	URL                 string    `json:"url"`
	Title               string    `json:"title,omitempty"`
	Viewport            *Size     `json:"viewport,omitempty"`
	Scroll              *Point    `json:"scroll,omitempty"`
	DocumentHeight      float64   `json:"documentHeight,omitempty"`
	Forms               []Form    `json:"forms,omitempty"`
	Headings            []Heading `json:"headings,omitempty"`
	Links               int       `json:"links"`
	Images              int       `json:"images"`
	InteractiveElements int       `json:"interactiveElements"`
}

// Enforce applies the limits to an answer from the page.
func (p *PageInfo) Enforce() {
	if len(p.Headings) > MaxHeadings {
		p.Headings = p.Headings[:MaxHeadings]
	}
	for i := range p.Headings {
		p.Headings[i].Text = capture.Truncate(p.Headings[i].Text, MaxHeadingText)
	}
}
