package tui

import (
	"context"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
)

// tailAudit follows the audit log at path until ctx ends, pushing each
// batch of new lines as an AuditMsg.
func tailAudit(ctx context.Context, path string, push func(tea.Msg)) error {
	path = filepath.Clean(path)
	return audit.Tail(ctx, path, func(lines []audit.Line) { push(AuditMsg{Lines: lines, Path: path}) })
}
