package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// version is the release: what the server reports in its health, the
// dashboard's header and MCP's serverInfo show, and the doctor compares.
// It is also the extension's manifest version (TestVersionIsTheManifests).
const version = "0.1.0"

// commit is the commit the binary was built from, when the build says so
// (make build: -ldflags "-X main.commit=abc1234"); otherwise versionLine
// takes it from Go's VCS stamp.
var commit string

// versionLine is the release followed by the commit it was built from:
// "0.1.0 (commit abc1234)", "… abc1234-dirty)" or "… abc1234, modified)"
// when the tree had uncommitted changes, the release alone when the build
// carries no commit (go test, go install of a module, -buildvcs=false).
func versionLine(commit string, info *debug.BuildInfo, ok bool) string {
	if commit != "" {
		return fmt.Sprintf("%s (commit %s)", version, commit)
	}
	if !ok {
		return version
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		return version
	}
	return fmt.Sprintf("%s (commit %.7s%s)", version, rev, modified)
}

// printVersion is `gasoline version` and `gasoline --version`.
func printVersion(stdout io.Writer) int {
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, "gasoline", versionLine(commit, info, ok))
	return 0
}
