package sourcemap

import (
	"context"
	"fmt"
	"net/url"
)

// MaxSheet bounds a stylesheet read for the positions of its rules.
const MaxSheet = 2 << 20

// Text reads a stylesheet's text by the rules maps are read by: the
// sheet's origin and the page's must both be allowed (development origins,
// or the human's list), a redirect stays on its origin, at most MaxSheet
// bytes. The browser's CSSOM in Firefox gives no line numbers: they are
// found in this text.
func (r *Resolver) Text(ctx context.Context, sheet, page string) ([]byte, error) {
	u, err := url.Parse(sheet)
	if err != nil || Origin(u) == "" {
		return nil, fmt.Errorf("%s is not an http(s) URL", clip(sheet))
	}
	p, _ := url.Parse(page)
	for _, o := range []*url.URL{u, p} {
		if !r.permitted(o) {
			return nil, fmt.Errorf("origin %s is not allowed: the human can allow it in the extension's options (source maps)", Origin(o))
		}
	}
	body, _, err := get(ctx, r.cfg.Client, u.String(), MaxSheet)
	return body, err
}
