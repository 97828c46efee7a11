package security

import (
	"regexp"
	"sync"
)

// Categories of checks, as the AI names them in the checks option.
const (
	Credentials  = "credentials"
	AuthPatterns = "auth_patterns"
	PIIExposure  = "pii_exposure"
	Transport    = "transport"
)

// AllChecks is every category, in the order findings are reported.
var AllChecks = []string{Credentials, AuthPatterns, PIIExposure, Transport}

// Severities, lowest first.
const (
	Info     = "info"
	Warning  = "warning"
	Critical = "critical"
)

// Severities lists the accepted severity_min values, lowest first.
var Severities = []string{Info, Warning, Critical}

func rank(sev string) int {
	switch sev {
	case Critical:
		return 2
	case Warning:
		return 1
	}
	return 0
}

// Rule describes one check once per report, so findings need not repeat it.
type Rule struct {
	Category string `json:"-"`
	Title    string `json:"title"`
	CWE      string `json:"cwe,omitempty"`
	Fix      string `json:"fix"`
}

const fixURL = "Move the secret to an Authorization header or the request body; never put secrets in URLs (they land in server logs, history and proxies). Rotate it."
const fixKey = "Remove the key from client-side code and traffic; call the API from a server that holds the key. Rotate it."
const fixLog = "Remove the console call or log a redacted value."

// Rules is every check by id.
var Rules = map[string]Rule{
	"secret_in_url":       {Credentials, "API key or secret in URL query parameter", "CWE-598", fixURL},
	"secret_param_in_url": {Credentials, "Secret-named URL parameter with a long value", "CWE-598", fixURL},
	"token_in_url":        {Credentials, "Auth token in URL", "CWE-598", fixURL},
	"aws_access_key":      {Credentials, "AWS access key ID exposed", "CWE-798", fixKey},
	"aws_secret_key":      {Credentials, "AWS secret access key exposed", "CWE-798", fixKey},
	"private_key":         {Credentials, "Private key material exposed", "CWE-321", "Never send private keys to the browser. Revoke and regenerate the key pair."},
	"github_token":        {Credentials, "GitHub token exposed", "CWE-798", fixKey},
	"stripe_key":          {Credentials, "Stripe secret key exposed", "CWE-798", fixKey},
	"gitlab_token":        {Credentials, "GitLab token exposed", "CWE-798", fixKey},
	"slack_token":         {Credentials, "Slack token or webhook exposed", "CWE-798", fixKey},
	"google_api_key":      {Credentials, "Google API key exposed", "CWE-798", fixKey},
	"openai_key":          {Credentials, "OpenAI API key exposed", "CWE-798", fixKey},
	"anthropic_key":       {Credentials, "Anthropic API key exposed", "CWE-798", fixKey},
	"npm_token":           {Credentials, "npm token exposed", "CWE-798", fixKey},
	"api_token":           {Credentials, "Service API token exposed (SendGrid, Hugging Face, PyPI, Shopify, DigitalOcean, Linear, Postman)", "CWE-798", fixKey},
	"jwt_in_request_body": {Credentials, "JWT in request body", "CWE-522", "Send tokens in the Authorization header, not in payloads."},
	"secret_in_body":      {Credentials, "Secret-named value sent in a request body or WebSocket message", "CWE-522", "Expected where the page signs in; elsewhere, check that the value should leave the page. Gasoline stored it redacted."},
	"api_key_in_body":     {Credentials, "API key in JSON body", "CWE-522", "If intentional, make sure the key is scoped and not a server secret; otherwise proxy the call server-side."},

	"credit_card": {Credentials, "Payment card number in traffic", "CWE-359", "Send card numbers only to the payment provider (its hosted fields); keep at most the last four digits elsewhere."},

	"pii_without_auth": {AuthPatterns, "Endpoint returns personal data without authentication", "CWE-306", "Require authentication on this endpoint; if it is public by design, stop returning personal fields."},

	"jwt_in_log":         {PIIExposure, "JWT logged to console", "CWE-532", fixLog},
	"bearer_in_log":      {PIIExposure, "Bearer token logged to console", "CWE-532", fixLog},
	"password_in_log":    {PIIExposure, "Password or other secret-named value logged to console", "CWE-532", fixLog},
	"email_in_log":       {PIIExposure, "Email address logged to console", "CWE-532", fixLog},
	"pii_in_log":         {PIIExposure, "Personal data (SSN, card or phone number) logged to console", "CWE-532", fixLog},
	"pii_in_response":    {PIIExposure, "Response contains personal data", "CWE-359", "Return only the fields the page needs; authenticated responses with personal data are expected."},
	"secret_in_response": {PIIExposure, "Password or token in response body", "CWE-200", "Never return passwords; return tokens only from auth endpoints."},

	"http_api":             {Transport, "API call over unencrypted HTTP", "CWE-319", "Use HTTPS."},
	"mixed_content_script": {Transport, "Mixed content: HTTPS page loads an HTTP script", "CWE-319", "Load the script over HTTPS; an attacker on the network can replace it."},
	"mixed_content":        {Transport, "Mixed content: HTTPS page loads an HTTP resource", "CWE-319", "Load every resource over HTTPS."},
	"insecure_websocket":   {Transport, "WebSocket over unencrypted ws://", "CWE-319", "Use wss://."},
}

// lazyRegexp compiles expr on first use, not when the package loads: every
// gasoline process (each AI client's `gasoline --mcp`) would otherwise pay
// ~1 ms at start for patterns that only an audit runs.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var (
	// URL parameters, as the spec writes them, with the name and value
	// captured. Fragments are included: OAuth puts tokens there.
	urlSecretParam  = lazyRegexp(`(?i)[?&#](api_key|apikey|key|token|secret|password)=([^&#]*)`)
	urlGenericParam = lazyRegexp(`(?i)[?&#](\w*(?:secret|password|passwd|token)\w*)=([^&#]{8,})`)
	urlBearerParam  = lazyRegexp(`(?i)[?&#](auth|bearer|token)=([A-Za-z0-9._-]{20,})`)

	// Personal data in console text.
	emailPattern = lazyRegexp(`[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}`)
	ssnPattern   = lazyRegexp(`\b\d{3}-\d{2}-\d{4}\b`)
	cardPattern  = lazyRegexp(`\b\d{4}[\s-]?\d{4}[\s-]?\d{4}[\s-]?\d{4}\b`)
	// The spec's E.164 form \+?[1-9]\d{1,14} matches any number, so it is
	// used only with its + and at least 8 digits; the US form as given.
	phonePattern = lazyRegexp(`\+[1-9]\d{7,14}\b|\(\d{3}\)\s?\d{3}-\d{4}`)

	// Quick gates before the scans that have no literal to search for.
	envPattern = lazyRegexp(`(?i)(?:^|[./\-_:])(?:staging|stage|dev|development)(?:[./\-_:]|$)`)
)
