// Command gen writes features/redact/formats_gen.go: the credential formats
// Gasoline recognises in free text, read from the rule set gitleaks ships
// (config/gitleaks.toml of github.com/zricethezav/gitleaks/v8, at the
// version below). The module is fetched by `go mod download`, not required
// by go.mod: gitleaks as a library would pull some seventy modules into the
// binary for a list of regular expressions. Only the rules named in picks
// are written, each with what Gasoline adds: the audit rule it reports and
// the public prefix a redacted value keeps. Run by go generate in package
// redact.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

const module = "github.com/zricethezav/gitleaks/v8@v8.30.1"

// pick is one gitleaks rule Gasoline uses: the security audit's rule for
// it, the prefix a redacted value keeps (a regular expression matched at
// the start of the secret), keywords that replace gitleaks' own when those
// are too common to filter anything ("ey" is in "key" and "they"), and
// changes to the regex (old, new) where gitleaks' misses what pages write.
type pick struct {
	id, rule, keep string
	keywords       []string
	edit           [2]string
}

// gitleaks ends many rules with the characters that close a value in
// source code: a quote, a space, a semicolon, an escaped line end. Text
// written for people also ends one with , . ) ] } > & and the like, so the
// end is widened to any character that cannot continue the secret.
const (
	codeEnd = "(?:[\\x60'\"\\s;]|\\\\[nr]|$)"
	textEnd = "(?:[^A-Za-z0-9_\\-]|$)"
)

var picks = []pick{
	// A token with short claims ({"sub":"1"}) has fewer than 17 characters
	// after its payload's "ey"; the header's keep 17.
	{id: "jwt", rule: "jwt", keep: `ey[A-Za-z0-9_-]{4}`, keywords: []string{"eyj"},
		edit: [2]string{`\.ey[a-zA-Z0-9\/\\_-]{17,}`, `\.ey[a-zA-Z0-9\/\\_-]{8,}`}},
	{id: "aws-access-token", rule: "aws_access_key", keep: `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)`},
	{id: "github-pat", rule: "github_token", keep: `ghp_`},
	{id: "github-oauth", rule: "github_token", keep: `gho_`},
	{id: "github-app-token", rule: "github_token", keep: `gh[us]_`},
	{id: "github-refresh-token", rule: "github_token", keep: `ghr_`},
	{id: "github-fine-grained-pat", rule: "github_token", keep: `github_pat_`},
	{id: "gitlab-pat", rule: "gitlab_token", keep: `glpat-`},
	{id: "gitlab-pat-routable", rule: "gitlab_token", keep: `glpat-`},
	{id: "gitlab-ptt", rule: "gitlab_token", keep: `glptt-`},
	{id: "gitlab-deploy-token", rule: "gitlab_token", keep: `gldt-`},
	{id: "gitlab-feed-token", rule: "gitlab_token", keep: `glft-`},
	{id: "gitlab-cicd-job-token", rule: "gitlab_token", keep: `glcbt-`},
	{id: "slack-bot-token", rule: "slack_token", keep: `xoxb-`},
	{id: "slack-user-token", rule: "slack_token", keep: `xox[pe]-`},
	{id: "slack-app-token", rule: "slack_token", keep: `(?i)xapp-`},
	{id: "slack-legacy-token", rule: "slack_token", keep: `xox[os]-`},
	{id: "slack-webhook-url", rule: "slack_token", keep: `(?:https?://)?hooks.slack.com/(?:services|workflows|triggers)/`},
	{id: "stripe-access-token", rule: "stripe_key", keep: `(?:sk|rk)_(?:test|live|prod)_`},
	{id: "gcp-api-key", rule: "google_api_key", keep: `AIza`},
	{id: "openai-api-key", rule: "openai_key", keep: `sk-(?:(?:proj|svcacct|admin)-)?`},
	{id: "anthropic-api-key", rule: "anthropic_key", keep: `sk-ant-api03-`},
	{id: "anthropic-admin-api-key", rule: "anthropic_key", keep: `sk-ant-admin01-`},
	{id: "npm-access-token", rule: "npm_token", keep: `(?i)npm_`},
	{id: "private-key", rule: "private_key", keep: `(?i)-----BEGIN[ A-Z0-9_-]{0,100}?PRIVATE KEY(?: BLOCK)?-----`},
	{id: "sendgrid-api-token", rule: "api_token", keep: `SG\.`},
	{id: "huggingface-access-token", rule: "api_token", keep: `hf_`},
	{id: "pypi-upload-token", rule: "api_token", keep: `pypi-`},
	{id: "shopify-access-token", rule: "api_token", keep: `shpat_`},
	{id: "digitalocean-pat", rule: "api_token", keep: `dop_v1_`},
	{id: "linear-api-key", rule: "api_token", keep: `lin_api_`},
	{id: "postman-api-token", rule: "api_token", keep: `PMAK-`},
}

type rule struct {
	ID       string   `toml:"id"`
	Regex    string   `toml:"regex"`
	Entropy  float64  `toml:"entropy"`
	Keywords []string `toml:"keywords"`
}

func main() {
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		log.Fatalf("go mod download %s: %v", module, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		log.Fatalf("go mod download %s: no directory (%v)", module, err)
	}
	raw, err := os.ReadFile(filepath.Join(mod.Dir, "config", "gitleaks.toml"))
	if err != nil {
		log.Fatal(err)
	}
	var cfg struct {
		Rules []rule `toml:"rules"`
	}
	if err := toml.Unmarshal(raw, &cfg); err != nil {
		log.Fatal(err)
	}
	byID := map[string]rule{}
	for _, r := range cfg.Rules {
		byID[r.ID] = r
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by features/redact/gen from %s config/gitleaks.toml; DO NOT EDIT.\n", module)
	b.WriteString("// Change the picks in gen/main.go and run `go generate ./features/redact/`.\n\npackage redact\n\n")
	b.WriteString("var gitleaksFormats = []Format{\n")
	for _, p := range picks {
		r, ok := byID[p.id]
		if !ok {
			log.Fatalf("gitleaks has no rule %q", p.id)
		}
		if p.edit[0] != "" {
			if !strings.Contains(r.Regex, p.edit[0]) {
				log.Fatalf("%s: no %s in %s", p.id, p.edit[0], r.Regex)
			}
			r.Regex = strings.Replace(r.Regex, p.edit[0], p.edit[1], 1)
		}
		r.Regex = strings.ReplaceAll(r.Regex, codeEnd, textEnd)
		re, err := regexp.Compile(r.Regex)
		if err != nil {
			log.Fatalf("%s: %v", p.id, err)
		}
		if _, err := regexp.Compile(p.keep); err != nil {
			log.Fatalf("%s keep: %v", p.id, err)
		}
		group := 0
		if re.NumSubexp() > 0 {
			group = 1
		}
		kw := r.Keywords
		if p.keywords != nil {
			kw = p.keywords
		}
		fmt.Fprintf(&b, "\t{ID: %q, Rule: %q, Regex: %q, Group: %d, Entropy: %v, Keywords: %#v, Keep: %q},\n",
			p.id, p.rule, r.Regex, group, r.Entropy, kw, p.keep)
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("formats_gen.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
}
