package server

import (
	"context"
	"regexp"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/redact"
	"github.com/gasoline-dev/gasoline/features/styles"
)

// propertyName is what a CSS property name can look like; whether the
// browser knows it, the page says (CSS.supports).
var propertyName = regexp.MustCompile(`^(--[A-Za-z0-9_-]{1,100}|-?[a-z][a-z0-9-]{0,60})$`)

// styler answers analyze styles: the extension reports the declarations
// that apply to the element and its ancestors (sw/styles.js: CDP's CSS
// domain in Chromium; content/styles.js: the document's style sheets in
// Firefox), features/styles orders the cascade and places each rule at
// its original source through the sheet's source map.
type styler struct {
	queries *browser.Broker
	maps    styles.Maps
}

// stylesQuery is the extension's query.
type stylesQuery struct {
	Selector   string   `json:"selector"`
	Properties []string `json:"properties,omitempty"`
}

func (st *styler) analyzeStyles(ctx context.Context, a args) (any, error) {
	q := stylesQuery{Selector: selectorParam.get(a), Properties: propsParam.get(a)}
	if q.Selector == "" {
		return nil, invalid("selector is required for styles")
	}
	if len(q.Properties) > styles.MaxProps {
		return nil, invalid("properties: at most %d", styles.MaxProps)
	}
	for _, p := range q.Properties {
		if !propertyName.MatchString(p) {
			return nil, invalid("properties: %q is not a CSS property name (write it as in CSS: background-color)", p)
		}
	}
	var raw styles.Raw
	resp, err := askPage(ctx, st.queries, browser.KindStyles, queryTabParam.get(a), q, domTimeout, &raw)
	if err != nil {
		return nil, err
	}
	if raw.URL == "" {
		raw.URL = resp.URL
	}
	ans := styles.Build(raw, q.Properties, styles.Place(ctx, raw.URL, st.maps))
	// A custom property or a url() can carry what the secret rules name.
	for i := range ans.Sheets {
		ans.Sheets[i] = redact.URL(ans.Sheets[i])
	}
	for i := range ans.Unreadable {
		ans.Unreadable[i] = redact.URL(ans.Unreadable[i])
	}
	for name, p := range ans.Properties {
		p.Computed = redact.Text(p.Computed)
		for _, s := range append([]*styles.Shown{p.Winner}, shownOf(&p)...) {
			if s != nil {
				s.Value = redact.Text(s.Value)
			}
		}
		ans.Properties[name] = p
	}
	return struct {
		Tab int    `json:"tab,omitempty"`
		URL string `json:"url"`
		styles.Answer
	}{resp.Tab, redact.URL(raw.URL), ans}, nil
}

// shownOf is a property's beaten and inherited declarations.
func shownOf(p *styles.Property) []*styles.Shown {
	var out []*styles.Shown
	for i := range p.Beat {
		out = append(out, &p.Beat[i])
	}
	if p.Inherited != nil {
		out = append(out, &p.Inherited.Shown)
	}
	return out
}
