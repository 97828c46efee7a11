package wire

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// wire is the shared vocabulary of server and dashboard: importing either
// would make it a copy's owner again, or a cycle.
func TestImportsNeitherServerNorTUI(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources: %v", err)
	}
	const mod = "github.com/gasoline-dev/gasoline/"
	for _, f := range files {
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, mod) && !strings.HasPrefix(path, mod+"features/") {
				t.Errorf("%s imports %s: wire may import only features", f, path)
			}
		}
	}
}
