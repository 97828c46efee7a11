package redact

import (
	"strings"
	"testing"
)

// FuzzMessage: page-written text never panics the scrubber, a planted
// credential never comes out whole, and Scan reads any text.
func FuzzMessage(f *testing.F) {
	for _, s := range []string{"token: ", `{"password":"`, "<token>", "Bearer ", "-----BEGIN RSA PRIVATE KEY-----", "[redacted]", "sk_live_", "eyJ"} {
		f.Add(s)
	}
	key := "gh" + "p_" + "0123456789abcdefghijklmnopqrstuvwxyz"
	f.Fuzz(func(t *testing.T, s string) {
		out := Message(s + " " + key + " " + s)
		if strings.Contains(out, key[4:]) {
			t.Fatalf("key kept: %q", out)
		}
		Scan(out, func(m Match) { _ = m.Value(out) })
		Body(s, "application/xml")
		Body(s, "application/json")
	})
}
