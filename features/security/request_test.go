package security

import "testing"

func TestRequestSecret(t *testing.T) {
	for _, c := range []struct{ method, url, body, want string }{
		{"GET", "https://api.shop.io/x?api_key=sk_live_abcdefghijklmnop1234", "", "secret_in_url"},
		{"GET", "https://api.shop.io/x?api_key=[redacted]", "", "secret_in_url"}, // scrubbed, but sent
		{"GET", "https://api.shop.io/x?page=2", "", ""},
		{"POST", "https://api.shop.io/login", `{"user":"ada"}`, ""},
	} {
		if got := RequestSecret(c.method, c.url, c.body); got != c.want {
			t.Errorf("%s %s %s: %q, want %q", c.method, c.url, c.body, got, c.want)
		}
	}
}
