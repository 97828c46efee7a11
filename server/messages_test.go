package server

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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

// paramLike is how a parameter's name looks in a message: snake_case.
var paramLike = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)

// notParams are snake_case words of errors only the extension's routes
// answer, never a tool, each with where it comes from.
var notParams = map[string]string{
	"tab_closed": "POST /page-left's reason",
}

// Every error a tool can answer names only parameters (and values) the
// tools' schemas have: each string of every problem.New and invalid call in
// server/ and features/ is read for snake_case words, and each must be in
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
					for _, w := range paramLike.FindAllString(text, -1) {
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
