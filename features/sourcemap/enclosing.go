package sourcemap

import (
	"regexp"
	"strings"
)

// The heads of a block that name a function, in the usual JavaScript and
// TypeScript forms: "function name(", "name = function(" or "name = (...) =>",
// and a method "name(...) {".
var (
	namedFunc  = regexp.MustCompile(`\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\(`)
	assignFunc = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?(?:function\b|(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=]*)?=>)`)
	methodHead = regexp.MustCompile(`^\s*(?:(?:public|private|protected|static|async|get|set)\s+)*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\([^()]*\)\s*(?::[^{]*)?$`)
	keywords   = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "with": true, "function": true}
)

// maxScan bounds how far back the enclosing function is looked for.
const maxScan = 200

// enclosing names the function whose body holds line:col (1-based) of a
// source text, by walking back to the first unmatched "{" whose head names
// a function; "" when the position is in an anonymous function or at top
// level. Braces in strings and comments can mislead it; it only names a
// frame the browser could not name in the original's words.
func enclosing(code *text, line, col int) string {
	if code == nil || line < 1 || line > code.lines() {
		return ""
	}
	depth := 0
	for n := line - 1; n >= 0 && n >= line-maxScan; n-- {
		l := code.line(n + 1)
		end := len(l)
		if n == line-1 {
			end = min(max(col-1, 0), len(l))
		}
		for i := end - 1; i >= 0; i-- {
			switch l[i] {
			case '}':
				depth++
			case '{':
				if depth > 0 {
					depth--
					continue
				}
				head := strings.TrimRight(l[:i], " \t")
				if strings.HasSuffix(head, "=>") {
					if m := assignFunc.FindStringSubmatch(head); m != nil && strings.HasSuffix(strings.TrimSpace(head[strings.LastIndex(head, m[0]):]), "=>") {
						return m[1]
					}
					return ""
				}
				if m := namedFunc.FindAllStringSubmatch(head, -1); m != nil {
					return m[len(m)-1][1]
				}
				if m := assignFunc.FindStringSubmatch(head); m != nil {
					return m[1]
				}
				if m := methodHead.FindStringSubmatch(head); m != nil && !keywords[m[1]] {
					return m[1]
				}
			}
		}
	}
	return ""
}
