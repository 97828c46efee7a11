package sourcemap

import (
	"net/netip"
	"net/url"
	"strings"
)

// Origin is a URL's scheme://host[:port], the unit every fetch rule is
// about; "" when the URL is not http(s).
func Origin(u *url.URL) string {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + strings.ToLower(u.Host)
}

// OriginOf is Origin of a URL string.
func OriginOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return Origin(u)
}

// Development says whether an origin is the developer's own machine or
// network by its address alone (no DNS, which a page could steer):
// localhost and *.localhost, loopback and private IP literals.
func Development(u *url.URL) bool {
	if Origin(u) == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()
}

// NormalizeOrigin turns what the human typed ("https://app.example.com",
// "https://app.example.com/") into an origin, or "" when it is not one.
func NormalizeOrigin(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return ""
	}
	return Origin(u)
}
