// Package redact is Gasoline's one rule for secrets: which names (JSON keys,
// form and multipart fields, query parameters, input fields) and which HTTP
// headers carry them, and the functions that replace their values with
// Redacted before anything is stored. The extension applies the same rule,
// generated from Rules into extension/generated, before anything leaves the
// page; the server applies it again on ingest.
package redact

import (
	"slices"
	"strings"
)

// Redacted replaces every secret value. The key stays, so the AI still sees
// the shape of what was sent.
const Redacted = "[redacted]"

// Rule is the secret-name rule as data, so the extension can be generated
// from it. A name is split into words at every character that is not an
// ASCII letter or digit and where a lowercase letter or digit is followed by
// an uppercase one ("accessToken" → access, token), and the words are
// lowercased. The name is secret when one word is in Words, or when the words
// that are not in Allow, joined ("x-api-key" → xapikey), are not in Allow
// either and contain one of Substrings.
type Rule struct {
	// Substrings are matched anywhere in the joined words, so "accesstoken",
	// "api_key" and "X-Client-Secret" all match.
	Substrings []string
	// Words are too short or too common to match inside other words ("auth"
	// is in "author", "pass" in "passenger", "sid" in "inside").
	Words []string
	// Allow lists words that contain a substring but name no secret: counts
	// of language-model tokens and tokenizer settings ("max_tokens",
	// "tokenizer_version") stay readable. An entry may also be a whole name,
	// its words joined: OAuth's "token_type" and endpoints are no secrets.
	Allow []string
	// HeaderSubstrings: a header whose lowercased name contains one of these
	// is secret, whatever the words of its name.
	HeaderSubstrings []string
	// FieldWords make an input field secret (what is typed in it is never
	// kept) without naming a secret elsewhere: a payment card's fields
	// (name="card", autocomplete="cc-number", "cc-exp", "cc-csc", id="pan")
	// hold a card number or its expiry, while a JSON "card" or an e-mail's
	// "cc" holds none (the card number format finds a number anywhere).
	FieldWords []string
}

// Rules is the rule Gasoline applies, in the server and in the extension.
var Rules = Rule{
	Substrings: []string{
		"password", "passwd", "passwort", "passphrase", "passcode", "pwd", "secret", "token",
		"apikey", "accesskey", "privatekey", "privkey", "signingkey", "encryptionkey",
		"credential", "authorization", "sessionid", "sessid", "sessionkey",
		"cardnumber", "ccnumber", "creditcard", "securitycode", "onetimecode", "pincode",
	},
	Words: []string{
		"auth", "pass", "session", "sid", "cookie", "jwt", "bearer", "csrf", "xsrf",
		"otp", "totp", "hotp", "pin", "cvv", "cvv2", "cvc", "csc", "ssn", "sig", "signature",
	},
	Allow: []string{"tokens", "tokenizer", "tokenizers", "tokenize", "tokenized", "tokenization", "secretary", "secretaries",
		"tokentype", "tokenendpoint", "tokenurl", "authorizationendpoint", "authorizationurl"},
	HeaderSubstrings: []string{
		"authorization", "auth", "cookie", "token", "secret", "key", "password", "passwd", "session", "credential",
	},
	FieldWords: []string{"card", "cc", "pan", "cardnumber", "ccnumber", "cvv", "cvc", "csc", "expiry"},
}

var (
	words      = byFirst(Rules.Words)
	allowed    = byFirst(Rules.Allow)
	substrings = byFirst(Rules.Substrings)
	headerSubs = byFirst(Rules.HeaderSubstrings)
)

// byFirst indexes needles by their first byte, so a name is searched for
// all of them in one pass.
func byFirst(list []string) *[256][]string {
	var t [256][]string
	for _, s := range list {
		t[s[0]] = append(t[s[0]], s)
	}
	return &t
}

// in reports whether w is one of the words of t.
func in(w []byte, t *[256][]string) bool {
	for _, n := range t[w[0]] {
		if string(w) == n {
			return true
		}
	}
	return false
}

// containing returns the first needle of t that b contains, or "".
func containing(b []byte, t *[256][]string) string {
	for i, c := range b {
		for _, n := range t[c] {
			if len(b)-i >= len(n) && string(b[i:i+len(n)]) == n {
				return n
			}
		}
	}
	return ""
}

func containsAny(b []byte, t *[256][]string) bool { return containing(b, t) != "" }

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func lower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// IsSecretName reports whether a field, key or parameter name names a secret.
// It does not allocate for names of up to 64 bytes: it runs for every query
// parameter and JSON key on the ingest path.
func IsSecretName(name string) bool { return SecretWord(name) != "" }

// SecretWord is the entry of Rules that makes name a secret ("apikey" for
// "X-Api-Key", "password" for "userPassword"), or "" for a name that names
// no secret.
func SecretWord(name string) string {
	var jb, wb [64]byte
	joined := jb[:0]
	start := 0
	for i := 0; i <= len(name); i++ {
		end := i == len(name) || !isAlnum(name[i])
		camel := !end && i > start && isUpper(name[i]) && !isUpper(name[i-1])
		if !end && !camel {
			continue
		}
		if i > start {
			w := wb[:0]
			for j := start; j < i; j++ {
				w = append(w, lower(name[j]))
			}
			for _, n := range words[w[0]] {
				if string(w) == n {
					return n
				}
			}
			if !in(w, allowed) {
				joined = append(joined, w...)
			}
		}
		start = i
		if end {
			start = i + 1
		}
	}
	if len(joined) == 0 || in(joined, allowed) {
		return ""
	}
	return containing(joined, substrings)
}

// Words splits a name as the rule does: at every character that is not an
// ASCII letter or digit and where a lowercase letter or digit is followed
// by an uppercase one; the words are lowercased.
func Words(name string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(name); i++ {
		end := i == len(name) || !isAlnum(name[i])
		camel := !end && i > start && isUpper(name[i]) && !isUpper(name[i-1])
		if !end && !camel {
			continue
		}
		if i > start {
			out = append(out, strings.ToLower(name[start:i]))
		}
		start = i
		if end {
			start = i + 1
		}
	}
	return out
}

// IsSecretHeader reports whether an HTTP header's value must not be stored.
func IsSecretHeader(name string) bool {
	var b [64]byte
	l := b[:0]
	for i := 0; i < len(name); i++ {
		l = append(l, lower(name[i]))
	}
	return containsAny(l, headerSubs) || IsSecretName(name)
}

// IsSecretField reports whether an input's value must never be kept: a
// password input, or one whose name, id, autocomplete or selector is a
// secret name or has a word of FieldWords (a card's fields).
func IsSecretField(inputType string, names ...string) bool {
	if strings.EqualFold(inputType, "password") {
		return true
	}
	for _, n := range names {
		if n != "" && (IsSecretName(n) || slices.ContainsFunc(Words(n), func(w string) bool { return slices.Contains(Rules.FieldWords, w) })) {
			return true
		}
	}
	return false
}
