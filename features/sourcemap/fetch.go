package sourcemap

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// errNoMap: the script names no source map (not a failure).
var errNoMap = errors.New("no source map")

// newClient returns the client every fetch goes through: it follows a
// redirect only within the origin it started from.
func newClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 || Origin(req.URL) != Origin(via[0].URL) {
				return fmt.Errorf("redirected to %s, another origin", Origin(req.URL))
			}
			return nil
		},
	}
}

// get reads a URL's body, at most limit bytes.
func get(ctx context.Context, c *http.Client, u string, limit int64) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("%s answered %d", u, resp.StatusCode)
	}
	if resp.ContentLength > limit {
		return nil, nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit", u, resp.ContentLength, limit)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(b)) > limit {
		return nil, nil, fmt.Errorf("%s is over the %d-byte limit", u, limit)
	}
	return b, resp.Header, nil
}

// mapReference finds where a script says its map is: the SourceMap (or
// older X-SourceMap) header, else the last sourceMappingURL comment
// (a stylesheet's is a /*# … */ comment).
func mapReference(script []byte, h http.Header) string {
	if v := strings.TrimSpace(h.Get("SourceMap")); v != "" {
		return v
	}
	if v := strings.TrimSpace(h.Get("X-SourceMap")); v != "" {
		return v
	}
	for _, marker := range [][]byte{[]byte("//# sourceMappingURL="), []byte("//@ sourceMappingURL="), []byte("/*# sourceMappingURL=")} {
		i := bytes.LastIndex(script, marker)
		if i < 0 {
			continue
		}
		rest := script[i+len(marker):]
		if j := bytes.IndexAny(rest, " \t\r\n*"); j >= 0 {
			rest = rest[:j]
		}
		return string(rest)
	}
	return ""
}

// inlineMap decodes a data: URL's JSON.
func inlineMap(ref string, limit int64) ([]byte, error) {
	meta, data, ok := strings.Cut(strings.TrimPrefix(ref, "data:"), ",")
	if !ok {
		return nil, errors.New("malformed data: URL")
	}
	if int64(len(data)) > limit*4/3+4 {
		return nil, fmt.Errorf("inline map over the %d-byte limit", limit)
	}
	if strings.HasSuffix(meta, ";base64") {
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, fmt.Errorf("inline map: %v", err)
		}
		return b, nil
	}
	s, err := url.PathUnescape(data)
	if err != nil {
		return nil, fmt.Errorf("inline map: %v", err)
	}
	return []byte(s), nil
}

// mapURL resolves a script's map reference: a data: URL as is, otherwise
// against the script's URL, refused when it leaves the script's origin.
func mapURL(script *url.URL, ref string) (string, error) {
	if strings.HasPrefix(ref, "data:") {
		return ref, nil
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("sourceMappingURL %q: %v", clip(ref), err)
	}
	u := script.ResolveReference(r)
	if Origin(u) != Origin(script) {
		return "", fmt.Errorf("map %s is not on the script's origin %s; not fetched", clip(u.String()), Origin(script))
	}
	return u.String(), nil
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
