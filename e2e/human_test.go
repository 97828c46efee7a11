//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// humanPost is the dashboard's call to the human's API: it carries the
// token the server on port wrote beside the audit log in the test home.
func humanPost(t testing.TB, port int, path, body string) (*http.Response, error) {
	t.Helper()
	tok, err := os.ReadFile(filepath.Join(testHome, ".gasoline", fmt.Sprintf("human-%d.token", port)))
	if err != nil {
		return nil, fmt.Errorf("read the human token: %w", err)
	}
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(port)+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Gasoline-Token", strings.TrimSpace(string(tok)))
	return http.DefaultClient.Do(req)
}
