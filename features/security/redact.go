package security

import (
	"net"
	"net/url"
	"strings"

	"github.com/gasoline-dev/gasoline/features/redact"
)

// Redact masks a secret for evidence: its first 6 and last 3 characters
// identify it without exposing it. Shorter secrets show less, so at least
// half of any secret is always hidden. A value capture already redacted
// ("sk_live_[redacted]", "[redacted]") holds no secret and is shown whole:
// a mark is never cut.
func Redact(s string) string {
	if strings.Contains(s, redact.Redacted) {
		return s
	}
	r := []rune(s)
	switch n := len(r); {
	case n >= 18:
		return string(r[:6]) + "..." + string(r[n-3:])
	case n >= 8:
		return string(r[:n/4]) + "..." + string(r[n-n/8:])
	default:
		return "***"
	}
}

var testMarkers = []string{"test", "dev", "example", "sample", "demo", "dummy"}

// isTestValue reports values the spec says not to flag: keys that say they
// are for tests or development.
func isTestValue(v string) bool {
	l := strings.ToLower(v)
	for _, m := range testMarkers {
		if strings.Contains(l, m) {
			return true
		}
	}
	return false
}

var placeholderMarkers = []string{"your", "placeholder", "redacted", "changeme", "xxxx", "****", "<", "${", "{{", "%s", "undefined", "null"}

// isPlaceholder reports values that stand for a secret without being one:
// YOUR_API_KEY, <token>, ${SECRET}, ********, aaaaaaaa.
func isPlaceholder(v string) bool {
	l := strings.ToLower(v)
	for _, m := range placeholderMarkers {
		if strings.Contains(l, m) {
			return true
		}
	}
	return l != "" && strings.Count(l, l[:1]) == len(l)
}

var mockMarkers = []string{"test", "mock", "example", "fake", "lorem"}

// isMock reports personal data that is obviously made up, reported at info.
func isMock(v string) bool {
	l := strings.ToLower(v)
	for _, m := range mockMarkers {
		if strings.Contains(l, m) {
			return true
		}
	}
	return false
}

// ignoredSecret combines the false-positive rules for a secret value.
func ignoredSecret(v string) bool { return isTestValue(v) || isPlaceholder(v) }

// envNote is added to findings whose URL looks like a non-production
// environment, where a leaked secret may be a throwaway.
func envNote(u string) string {
	if envPattern().MatchString(hostPath(u)) {
		return "staging/dev URL: if the secret is real, rotate it anyway"
	}
	return ""
}

func hostPath(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Host + p.Path
	}
	return u
}

// RedactURL masks whatever in a URL could be a secret before a finding
// shows it: userinfo passwords, values of secret-named query and fragment
// parameters, and anything matching a credential format.
func RedactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return redactTokens(raw)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "***")
		}
	}
	u.RawQuery = redactParams(u.RawQuery)
	if u.Fragment != "" {
		u.RawFragment = redactParams(u.EscapedFragment())
		u.Fragment, _ = url.PathUnescape(u.RawFragment)
	}
	return redactTokens(u.String())
}

func redactParams(q string) string {
	if q == "" {
		return q
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if ok && v != "" && (redact.IsSecretName(k) || len(v) >= 32) {
			parts[i] = k + "=" + Redact(v)
		}
	}
	return strings.Join(parts, "&")
}

// redactTokens masks every credential format found in s.
func redactTokens(s string) string { return redact.Credentials(s) }

// IsLocalhost reports URLs the transport checks skip: localhost, its
// subdomains, the loopback addresses.
func IsLocalhost(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func scheme(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return ""
	}
	return strings.ToLower(raw[:i])
}
