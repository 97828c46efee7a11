package snapshot

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain message stays", "Cannot read property 'user' of undefined", "Cannot read property 'user' of undefined"},
		{"uuid", "Order 3f2a9c4e-1b2d-4e5f-8a9b-0c1d2e3f4a5b not found", "Order [uuid] not found"},
		{"uppercase uuid", "session 3F2A9C4E-1B2D-4E5F-8A9B-0C1D2E3F4A5B expired", "session [uuid] expired"},
		{"numeric id", "User 48213 has no profile", "User [id] has no profile"},
		{"id after slash", "GET /api/users/42 failed", "GET /api/users/[id] failed"},
		{"id after hash", "Row #7 is invalid", "Row #[id] is invalid"},
		{"id= keeps its name", "lookup failed for id=17", "lookup failed for id=[id]"},
		{"hex object id", "Document 64b7f3a2c9e1d4f5a6b7c8d9 missing", "Document [id] missing"},
		{"iso timestamp", "Token expired at 2025-01-20T14:30:00.123Z, refresh", "Token expired at [timestamp], refresh"},
		{"iso with offset", "at 2025-01-20 14:30:00+01:00 the job failed", "at [timestamp] the job failed"},
		{"epoch millis", "request 1737383400123 timed out", "request [timestamp] timed out"},
		{"epoch seconds", "cache stamp 1737383400 stale", "cache stamp [timestamp] stale"},
		{"url with line and column", "TypeError: x is undefined at https://app.test/static/main.3f2a.js:120:17", "TypeError: x is undefined at [file]"},
		{"relative path with line", "ReferenceError in ./src/App.tsx:42", "ReferenceError in [file]"},
		{"file with query", "failed at http://localhost:3000/app.js?v=12:9:3", "failed at [file]"},
		{"at line 42", "Cannot read property 'x' of undefined at line 42", "Cannot read property 'x' of undefined at line [n]"},
		{"line and column", "Unexpected token at line 3, column 14", "Unexpected token at line [n]"},
		{"status codes stay distinct", "Failed to load resource: the server responded with a status of 404 (Not Found)", "Failed to load resource: the server responded with a status of 404 (Not Found)"},
		{"short counts stay", "Expected 2 arguments, got 3", "Expected 2 arguments, got 3"},
		{"short hex-looking word stays", "cafe1 is not defined", "cafe1 is not defined"},
		{"long a-f word stays", "deadbeefcafebabe", "deadbeefcafebabe"},
		{"whitespace folded", "a\n   b\t c", "a b c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// The spec's example: the same error at two lines is one error.
func TestNormalizeMatchesSameErrorAtOtherLines(t *testing.T) {
	pairs := [][2]string{
		{"Cannot read property 'x' of undefined at line 42", "Cannot read property 'x' of undefined at line 45"},
		{"x is undefined (app.js:10:5)", "x is undefined (app.js:12:9)"},
		{"user 3f2a9c4e-1b2d-4e5f-8a9b-0c1d2e3f4a5b at 2025-01-20T14:30:00Z", "user 00000000-1111-2222-3333-444444444444 at 2026-02-01T01:02:03Z"},
		{"GET /api/items/12345 → 500", "GET /api/items/99999 → 500"},
	}
	for _, p := range pairs {
		if a, b := Normalize(p[0]), Normalize(p[1]); a != b {
			t.Errorf("%q and %q normalise differently: %q vs %q", p[0], p[1], a, b)
		}
	}
	if a, b := Normalize("status of 404"), Normalize("status of 500"); a == b {
		t.Errorf("different statuses collapsed to %q", a)
	}
}

func TestNormalizeCapsLength(t *testing.T) {
	got := Normalize(strings.Repeat("é", 1000))
	if len(got) > MaxMessage {
		t.Fatalf("len %d > %d", len(got), MaxMessage)
	}
	if !strings.HasPrefix(got, "éé") || strings.ContainsRune(got, '\uFFFD') {
		t.Fatalf("cut badly: %q", got[:10])
	}
}

func TestEndpointPath(t *testing.T) {
	for _, tc := range []struct{ raw, host, want string }{
		{"http://localhost:3000/api/users?page=2", "localhost:3000", "/api/users"},
		{"http://localhost:3000/api/users#top", "localhost:3000", "/api/users"},
		{"http://localhost:3000", "localhost:3000", "/"},
		{"https://api.example.com/v1/orders?x=1", "localhost:3000", "api.example.com/v1/orders"},
		{"/relative/path?q=1", "localhost:3000", "/relative/path"},
		{"ws://localhost:3000/socket?token=[redacted]", "localhost:3000", "/socket"},
	} {
		if got := EndpointPath(tc.raw, tc.host); got != tc.want {
			t.Errorf("EndpointPath(%q, %q) = %q, want %q", tc.raw, tc.host, got, tc.want)
		}
	}
}

func BenchmarkNormalize(b *testing.B) {
	msg := "TypeError 7: cannot read 'x' of user 10007 (order 3f2a9c4e-1b2d-4e5f-8a9b-000000000007) at 2026-01-20T14:07:00Z in https://app.test/static/main.js:7:7 " + strings.Repeat("context ", 12)
	for b.Loop() {
		Normalize(msg)
	}
}

// Normalize runs on whatever a page logs: it must never panic, must stay
// within MaxMessage, and must be a fixed point (a normalised message
// matches itself when normalised again).
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"line 42, column", "id=", "#", "/9", "a.js:", "x.js:1:", "2025-01-20T14:30", "1737383400", "line 1:", "ID 7 at http://h:80/a.tsx?x=1:2:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Normalize(s)
		if len(got) > MaxMessage {
			t.Fatalf("len %d", len(got))
		}
		if again := Normalize(got); again != got && len(got) < MaxMessage-8 { // a cut can end a word early
			t.Fatalf("not a fixed point: %q → %q → %q", s, got, again)
		}
	})
}
