//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"strings"
)

// missingTools names the programs the end-to-end tests drive that this
// machine lacks, as Debian's packages are named, so one message says what
// to install instead of each test failing on its own.
func missingTools() string {
	var missing []string
	if _, err := os.Stat(chromiumPath()); err != nil {
		missing = append(missing, "chromium")
	}
	if os.Getenv("FIREFOX") == "" {
		if _, err := exec.LookPath("firefox-esr"); err != nil {
			missing = append(missing, "firefox-esr")
		}
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		missing = append(missing, "tmux")
	}
	return strings.Join(missing, " ")
}
