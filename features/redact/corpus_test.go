package redact

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// corpus reads a testdata file's entries: its lines but comments.
func corpus(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// Ordinary text (log lines, bodies, stacks with commit hashes, UUIDs, data
// URLs, colours, long numbers, minified code) is kept whole, and the audit
// finds nothing in it.
func TestOrdinaryTextIsKept(t *testing.T) {
	lines := corpus(t, "ordinary.txt")
	if len(lines) < 200 {
		t.Fatalf("%d ordinary entries, want at least 200", len(lines))
	}
	for _, l := range lines {
		out := map[string]string{"Message": Message(l)}
		if l[0] == '{' || l[0] == '<' { // a body
			out["Body"] = Body(l, "")
		}
		for name, got := range out {
			if got != l {
				t.Errorf("%s changed ordinary text\n  in: %s\n out: %s", name, l, got)
			}
		}
		Scan(l, func(m Match) { t.Errorf("Scan found %s (%s) %q in ordinary text: %s", m.Rule, m.ID, m.Value(l), l) })
	}
}

// Made-up secrets of every format, written where pages write them, are
// redacted, each keeping its public prefix, and are found again by Scan in
// what is stored.
func TestSecretsAreRedacted(t *testing.T) {
	formats := map[string]bool{}
	lines := corpus(t, "secrets.txt")
	for i, l := range lines {
		id, where, tmpl := split3(t, l)
		text, values := expand(tmpl, i)
		var got string
		if ct, ok := strings.CutPrefix(where, "body:"); ok {
			got = Body(text, ct)
		} else {
			got = Message(text)
		}
		for _, v := range values {
			if strings.Contains(got, v) {
				t.Errorf("%s: value %q kept in %s", id, v, got)
			}
		}
		if !strings.Contains(got, Redacted) {
			t.Errorf("%s: nothing redacted in %s", id, got)
		}
		rule := SecretName
		if i := slices.IndexFunc(Formats, func(f Format) bool { return f.ID == id }); i >= 0 {
			rule = Formats[i].Rule
		} else if id != "pair" && id != "xml" {
			t.Fatalf("line %d: unknown format %q", i+1, id)
		}
		if !found(text, rule, false) {
			t.Errorf("%s: Scan finds no %s in %s", id, rule, text)
		}
		// A format with no public prefix (an AWS secret key) leaves a bare
		// [redacted], which says nothing of what it was.
		if !found(got, rule, true) && (rule == SecretName || Formats[slices.IndexFunc(Formats, func(f Format) bool { return f.ID == id })].Keep != "") {
			t.Errorf("%s: Scan finds no redacted %s in %s", id, rule, got)
		}
		if again := Message(got); again != got {
			t.Errorf("%s: redacting again changes %s to %s", id, got, again)
		}
		formats[id] = true
	}
	if len(lines) < 50 || len(formats) < 15 {
		t.Errorf("%d secrets of %d formats, want at least 50 of 15", len(lines), len(formats))
	}
}

func found(s, rule string, scrubbed bool) bool {
	ok := false
	Scan(s, func(m Match) { ok = ok || m.Rule == rule && m.Scrubbed == scrubbed })
	return ok
}

func split3(t *testing.T, l string) (string, string, string) {
	f := strings.SplitN(l, "\t", 3)
	if len(f) != 3 {
		t.Fatalf("bad line %q", l)
	}
	return f[0], f[1], f[2]
}

var placeholderRe = regexp.MustCompile(`\{(\+|jwt|basic|pem(?:cut)?:[A-Z]+|card:[0-9]+:[ -]?[0-9]*|[a-z0-9]+:\d+)\}`)

const (
	alnum   = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	mixed   = "aB3dE5fG7hJ9kL2mN4pQ6rS8tU1vW0xY/z+"
	letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// expand fills a template's placeholders; seed makes each line's values
// its own. It returns the text and the made-up values that must not
// survive redaction.
func expand(tmpl string, seed int) (string, []string) {
	var values []string
	run := func(alphabet string, n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteByte(alphabet[(seed*7+i)%len(alphabet)])
		}
		return b.String()
	}
	b64 := base64.RawURLEncoding.EncodeToString
	text := placeholderRe.ReplaceAllStringFunc(tmpl, func(p string) string {
		p = p[1 : len(p)-1]
		var v string
		switch kind, arg, _ := strings.Cut(p, ":"); kind {
		case "+":
			return ""
		case "jwt":
			v = b64([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
				b64(fmt.Appendf(nil, `{"sub":"fake-user-%d","note":"not a real token"}`, seed)) + "." +
				b64(fmt.Appendf(nil, "fake-signature-%d-not-real", seed))
		case "card": // {card:PREFIX:SEP} a made-up card number with a valid check digit: PREFIX then
			// digits to 16 (15 after 34 or 37), written in groups of 4 (4-6-5) with SEP when given.
			prefix, sep, _ := strings.Cut(arg, ":")
			v = madeUpCard(prefix, seed)
			values = append(values, v[len(v)-8:])
			if sep != "" {
				v = groupCard(v, sep)
			}
			values = append(values, v)
			return v
		case "basic":
			v = base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "fakeuser:fake-pass-%d", seed))
		case "pem", "pemcut":
			body := strings.Repeat(run(alnum, 64)+"\n", 3)
			values = append(values, strings.TrimSpace(body[:64]))
			if kind == "pemcut" { // cut by a size cap before its END line
				return "-----BEGIN " + arg + " PRIVATE KEY-----\n" + body[:100]
			}
			return "-----BEGIN " + arg + " PRIVATE KEY-----\n" + body + "-----END " + arg + " PRIVATE KEY-----"
		default:
			n, _ := strconv.Atoi(arg)
			alphabet := map[string]string{"alnum": alnum, "lower": alnum[:36], "letters": letters, "hex": alnum[:16],
				"b32": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "mixed": mixed, "digits": alnum[:10]}[kind]
			v = run(alphabet, n)
		}
		if len(v) >= 8 {
			values = append(values, v)
		}
		return v
	})
	return text, values
}

// The pass that skips text holding neither a format's keyword nor a secret
// name lets every secret name of the rule through.
func TestEverySecretNameIsLookedFor(t *testing.T) {
	names := slices.Concat(Rules.Words, Rules.Substrings, load(t).Names.Secret, []string{"cc_number", "api_key", "X-Api-Key", "sessionId", "one-time-code", "PASS_WORD", "Pass-Phrase"})
	for _, n := range names {
		if IsSecretName(n) && !mayHold(n) {
			t.Errorf("%q names a secret, but the text is skipped", n)
		}
		if s := n + "=hunter2x"; !strings.ContainsAny(n, `"[`) && Message(s) == s {
			t.Errorf("Message(%q) redacts nothing", s)
		}
	}
}

// What follows a redacted private key is kept when the text is redacted
// again (as history read back is).
func TestRedactedKeyKeepsWhatFollows(t *testing.T) {
	pem, _ := expand("{pem:EC} then the rest of the message", 1)
	once := Message(pem)
	if !strings.HasSuffix(once, "[redacted] then the rest of the message") || Message(once) != once {
		t.Errorf("once %q, twice %q", once, Message(once))
	}
}

// madeUpCard is a number of 16 digits (15 for an Amex prefix) starting with
// prefix, its last digit Luhn's check digit.
func madeUpCard(prefix string, seed int) string {
	n := 16
	if prefix == "34" || prefix == "37" {
		n = 15
	}
	d := []byte(prefix)
	for i := 0; len(d) < n-1; i++ {
		d = append(d, byte('0'+(seed*7+i*3+1)%10))
	}
	sum := 0
	for i := range d { // from the right of the number with its check digit: d's last is 2nd from the right
		v := int(d[len(d)-1-i] - '0')
		if i%2 == 0 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return string(append(d, byte('0'+(10-sum%10)%10)))
}

// groupCard writes a card number in groups as people type it: 4-4-4-4, or
// 4-6-5 for 15 digits.
func groupCard(v, sep string) string {
	sizes := []int{4, 4, 4, 4}
	if len(v) == 15 {
		sizes = []int{4, 6, 5}
	}
	var parts []string
	for _, n := range sizes {
		parts = append(parts, v[:n])
		v = v[n:]
	}
	return strings.Join(parts, sep)
}
