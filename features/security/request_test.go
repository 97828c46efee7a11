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

// The memo answers as RequestSecret does, whether or not the request is
// the one it saw last.
func TestSecretMemo(t *testing.T) {
	var m SecretMemo
	for _, c := range []struct{ url, want string }{
		{"http://app.test/api?api_key=sk_live_abcdefghijklmnop1234", "secret_in_url"},
		{"http://app.test/api?api_key=sk_live_abcdefghijklmnop1234", "secret_in_url"},
		{"http://app.test/api?page=2", ""},
		{"http://app.test/api?page=2", ""},
		// Capture scrubbed the value, but the page did send a key in the URL.
		{"http://app.test/api?api_key=[redacted]", "secret_in_url"},
		{"http://app.test/api?page=3", ""},
	} {
		if k := m.Kind("GET", c.url, ""); k != c.want {
			t.Fatalf("%s: %q, want %q", c.url, k, c.want)
		}
	}
	if k := m.Kind("GET", "http://app.test/api?page=3", `{"api_key":"sk_live_abcdefghijklmnop1234"}`); k == "" {
		t.Fatal("a secret in the body of the same URL was not seen")
	}
}
