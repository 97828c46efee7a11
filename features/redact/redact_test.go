package redact

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// vectors are shared with the extension's node tests (extension/test), so
// both implementations of the rule are held to the same answers.
type vectors struct {
	Names   struct{ Secret, Plain []string }
	Headers struct{ Secret, Plain []string }
	URLs    [][2]string
	Bodies  []struct{ CT, In, Out string }
	// Fields are inputs: type, name, id, autocomplete.
	Fields struct{ Secret, Plain [][4]string }
	// Named are a name, a value stored under it and the value redacted.
	Named [][3]string
}

func load(t testing.TB) vectors {
	t.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNames(t *testing.T) {
	v := load(t)
	for _, n := range v.Names.Secret {
		if !IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = false, want true", n)
		}
	}
	for _, n := range v.Names.Plain {
		if IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = true, want false", n)
		}
	}
}

func TestHeaders(t *testing.T) {
	v := load(t)
	h := map[string]string{}
	for _, n := range append(v.Headers.Secret, v.Headers.Plain...) {
		h[n] = "v-" + n
	}
	Headers(h)
	for _, n := range v.Headers.Secret {
		if h[n] != Redacted {
			t.Errorf("header %s = %q, want %s", n, h[n], Redacted)
		}
	}
	for _, n := range v.Headers.Plain {
		if h[n] != "v-"+n {
			t.Errorf("header %s = %q, want it kept", n, h[n])
		}
	}
}

func TestURLs(t *testing.T) {
	for _, c := range load(t).URLs {
		if got := URL(c[0]); got != c[1] {
			t.Errorf("URL(%q)\n got %q\nwant %q", c[0], got, c[1])
		}
	}
}

func TestNamed(t *testing.T) {
	v := load(t)
	if len(v.Named) == 0 {
		t.Fatal("no named vectors")
	}
	for _, c := range v.Named {
		if got := Named(c[0], c[1]); got != c[2] {
			t.Errorf("Named(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestBodies(t *testing.T) {
	for _, c := range load(t).Bodies {
		got := Body(c.In, c.CT)
		if got != c.Out {
			t.Errorf("Body(%q, %q)\n got %q\nwant %q", c.In, c.CT, got, c.Out)
		}
		if json.Valid([]byte(c.In)) && !json.Valid([]byte(got)) {
			t.Errorf("Body(%q): valid JSON in, invalid out: %s", c.In, got)
		}
		if again := Body(got, c.CT); again != got {
			t.Errorf("Body is not idempotent on %q: %q", got, again)
		}
	}
}

// Every prefix of a JSON body (a body cut at the size cap anywhere) keeps
// its secret out.
func TestTruncatedJSONNeverLeaks(t *testing.T) {
	body := `{"user":"bob","session":{"id":7,"access_token":"SECRETVALUE1"},"password":"SECRETVALUE2","n":[1,2]}`
	for i := len(`{"user":"bob","session":{"id":7,"access_token":"S`); i <= len(body); i++ {
		got := Body(body[:i], "application/json")
		if strings.Contains(got, "SECRETVAL") || strings.Contains(got, "ECRETVALUE") {
			t.Fatalf("prefix %d leaks: %s", i, got)
		}
	}
}

func TestSecretFields(t *testing.T) {
	cases := []struct {
		typ, name string
		want      bool
	}{
		{"password", "#x", true},
		{"PASSWORD", "", true},
		{"text", `input[name="pass"]`, true},
		{"text", "#api-key", true},
		{"email", `input[name="email"]`, false},
		{"text", "#search", false},
		{"text", `input[name="card"]`, true},
		{"tel", "cc-number", true},
		{"text", "cc-exp", true},
		{"text", "#cardNumber", true},
		{"text", "#pan", true},
		{"text", "#discard-reason", false},
		{"text", "#panel-title", false},
	}
	for _, c := range cases {
		if got := IsSecretField(c.typ, c.name); got != c.want {
			t.Errorf("IsSecretField(%q, %q) = %v", c.typ, c.name, got)
		}
	}
}

func TestSecretFieldVectors(t *testing.T) {
	v := load(t)
	if len(v.Fields.Secret) == 0 {
		t.Fatal("no field vectors")
	}
	for _, f := range v.Fields.Secret {
		if !IsSecretField(f[0], f[1:]...) {
			t.Errorf("IsSecretField%q = false", f)
		}
	}
	for _, f := range v.Fields.Plain {
		if IsSecretField(f[0], f[1:]...) {
			t.Errorf("IsSecretField%q = true", f)
		}
	}
}

func TestPairsKeepsAlreadyRedactedAndEmptyValues(t *testing.T) {
	for _, s := range []string{"", "a", "token=", "token=" + Redacted, "&&=x&token"} {
		if got := Pairs(s); got != s {
			t.Errorf("Pairs(%q) = %q", s, got)
		}
	}
}

func BenchmarkIsSecretName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		IsSecretName("X-Request-Correlation-Id")
	}
}

func BenchmarkURLPlain(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		URL("https://app.example.test/api/v2/orders/12345/items")
	}
}

func BenchmarkURLQuery(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		URL("https://app.example.test/api/v2/search?q=shoes&page=2&sort=price&access_token=abc")
	}
}

func BenchmarkJSON4KB(b *testing.B) {
	item := `{"id":123,"name":"widget","price":9.5,"tags":["a","b"],"owner":{"email":"a@b.c","api_key":"k"}},`
	body := "[" + strings.Repeat(item, 4096/len(item)) + `{"password":"x"}]`
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		JSON(body)
	}
}

func BenchmarkText16KB(b *testing.B) {
	line := `<div class="row" data-id="42"><a href="/items?page=2&sort=asc">Next: page 2</a> <span>price: 9.50</span></div>` + "\n"
	body := strings.Repeat(line, 16<<10/len(line))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		Body(body, "text/html")
	}
}
