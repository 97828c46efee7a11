package server

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// paramLike is how a parameter's name looks in a message: snake_case, or
// the word a message starts with when it says what the word must be.
var (
	paramLike = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)
	leading   = regexp.MustCompile(`^([a-z][a-z0-9_]*) (?:is required|must |is longer|is empty)`)
)

// notParams are words of errors only the HTTP routes (the extension's, the
// human's) answer, never a tool, each with where it comes from.
var notParams = map[string]string{
	"tab_closed":  "POST /page-left's reason",
	"url":         "POST /page's field",
	"audit_reads": "POST /api/reads/audit's field",
}

// extInvalid is an invalid_param the extension answers a query with, which
// the AI reads as the tool's error: its message up to the first
// interpolation.
var extInvalid = regexp.MustCompile(`(?:QueryError|fail)\('invalid_param', ['\x60]([^'\x60$]*)`)

// paramWords are the words of msg that name a parameter, or may.
func paramWords(msg string) []string {
	words := paramLike.FindAllString(msg, -1)
	if m := leading.FindStringSubmatch(msg); m != nil {
		words = append(words, m[1])
	}
	return words
}

// Every error a tool can answer names only parameters (and values) the
// tools' schemas have: each string of every problem.New and invalid call in
// server/ and features/, and each invalid_param message of the extension,
// is read for snake_case words and for the word it starts with when it
// says what that must be ("selector is required"), and each must be in
// tools/list (a parameter, or a value one allows), a key or value of
// configure's settings, a stable error code, or one of notParams.
func TestErrorMessagesNameOnlySchemaParameters(t *testing.T) {
	s := New(Config{Version: "test"})
	c := mcpClient(t, s)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	var add func(v any)
	add = func(v any) {
		switch v := v.(type) {
		case string:
			known[v] = true
		case []any:
			for _, x := range v {
				add(x)
			}
		case []string:
			for _, x := range v {
				add(x)
			}
		case map[string]any:
			add(v["enum"])
			add(v["items"])
		}
	}
	for _, tool := range res.Tools {
		for name, p := range tool.InputSchema.Properties {
			known[name] = true
			add(p)
		}
	}
	for _, st := range capturectl.Settings { // the keys and values of configure's settings
		known[st.Name] = true
		add(st.Values)
	}
	for _, code := range []problem.Code{problem.InvalidParam, problem.NotFound, problem.Timeout, problem.RateLimited,
		problem.ExtensionNotConnected, problem.PilotDisabled, problem.RevokedByUser, problem.CSPBlocked, problem.ScriptError,
		problem.TooLarge, problem.Forbidden, problem.TokenRequired, problem.DeniedByUser, problem.ApprovalTimeout,
		problem.OriginNotAccepted, problem.Internal} {
		known[string(code)] = true
	}

	fset := token.NewFileSet()
	calls := 0
	var bad []string
	for _, root := range []string{".", "../features"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || !isProblemCall(call.Fun) {
					return true
				}
				calls++
				ast.Inspect(call, func(n ast.Node) bool {
					lit, ok := n.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return true
					}
					text, _ := strconv.Unquote(lit.Value)
					for _, w := range paramWords(text) {
						if !known[w] && notParams[w] == "" {
							bad = append(bad, fset.Position(lit.Pos()).String()+": "+w)
						}
					}
					return true
				})
				return false
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The extension's own refusals of a query's parameters.
	for _, dir := range []string{"../extension/sw", "../extension/content", "../extension"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.js"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range extInvalid.FindAllStringSubmatch(string(b), -1) {
				calls++
				for _, w := range paramWords(m[1]) {
					if !known[w] && notParams[w] == "" {
						bad = append(bad, f+": "+w)
					}
				}
			}
		}
	}
	if calls < 50 {
		t.Fatalf("only %d error calls found", calls)
	}
	slices.Sort(bad)
	if len(bad) > 0 {
		t.Fatalf("error messages name what no tool's schema has:\n%s", strings.Join(bad, "\n"))
	}
	t.Logf("%d error calls read", calls)
}

// isProblemCall is problem.New(...) or the server's invalid(...).
func isProblemCall(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name == "invalid"
	case *ast.SelectorExpr:
		x, ok := f.X.(*ast.Ident)
		return ok && x.Name == "problem" && f.Sel.Name == "New"
	}
	return false
}
