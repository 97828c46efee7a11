// Package sourcemap shows a JavaScript stack as the developer wrote it: it
// parses Chromium's and Firefox's stack text into frames, reads each frame's
// script and its source map (only from the script's own origin, and only
// from origins the human allows), maps the frame to its original source,
// line, column and function, and renders the stack densely for the AI.
// Nothing here knows HTTP handlers or MCP: plain Go in, plain Go out.
package sourcemap

import (
	"strconv"
	"strings"
)

// Frame is one line of a stack. A line that is not a frame (the message
// line, "<anonymous>", native code) keeps only Raw.
type Frame struct {
	Raw  string // the line as captured, without surrounding blanks
	Func string // function name as the browser gave it; "" when anonymous
	URL  string // script URL
	Line int    // 1-based
	Col  int    // 1-based
}

// IsFrame says whether the line was parsed into a script position.
func (f Frame) IsFrame() bool { return f.URL != "" && f.Line > 0 }

// Parse splits a stack into frames. Chromium writes "    at fn (url:1:2)"
// or "    at url:1:2"; Firefox writes "fn@url:1:2" or "@url:1:2".
func Parse(stack string) []Frame {
	var out []Frame
	for line := range strings.SplitSeq(stack, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		out = append(out, parseLine(line))
	}
	return out
}

func parseLine(line string) Frame {
	f := Frame{Raw: line}
	var fn, loc string
	if rest, ok := strings.CutPrefix(line, "at "); ok {
		if strings.HasSuffix(rest, ")") {
			if i := strings.LastIndex(rest, " ("); i >= 0 {
				fn, loc = rest[:i], rest[i+2:len(rest)-1]
			}
		} else if !strings.Contains(rest, " ") {
			loc = rest
		}
	} else if i := strings.LastIndex(line, "@"); i >= 0 {
		fn, loc = line[:i], line[i+1:]
	}
	url, l, c, ok := SplitLocation(loc)
	if !ok || strings.ContainsAny(url, " \t") || !(strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://")) {
		return f
	}
	f.Func, f.URL, f.Line, f.Col = fn, url, l, c
	return f
}

// SplitLocation reads "url:line:col" (a line from 1, a column from 0).
func SplitLocation(loc string) (url string, line, col int, ok bool) {
	i := strings.LastIndexByte(loc, ':')
	if i < 0 {
		return "", 0, 0, false
	}
	j := strings.LastIndexByte(loc[:i], ':')
	if j < 0 {
		return "", 0, 0, false
	}
	l, err1 := strconv.Atoi(loc[j+1 : i])
	c, err2 := strconv.Atoi(loc[i+1:])
	url = loc[:j]
	if err1 != nil || err2 != nil || l <= 0 || c < 0 {
		return "", 0, 0, false
	}
	return url, l, c, true
}
