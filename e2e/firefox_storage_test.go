//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// waitStored waits until a fixture page's title says it stored everything.
func (r *foxRig) waitStored(t *testing.T) {
	t.Helper()
	waitFor(t, 30*time.Second, "the page to store its state", func() bool {
		title, err := r.f.eval(r.f.tab, "document.title")
		if s, _ := title.(string); strings.HasPrefix(s, "failed") {
			t.Fatalf("the page: %s", s)
		}
		return err == nil && title == "stored"
	})
}

// TestStorageFirefox: observe storage in Firefox ESR, the same answer as
// in Chromium (checkShopStorage); off, refused; on again, answered.
func TestStorageFirefox(t *testing.T) {
	r := newFoxRig(t, "ff-storage-agent", map[string]any{})
	r.open(t, "/storage.html")
	r.waitStored(t)
	checkShopStorage(t, r.ai, r.site)
	r.f.setCapture(t, map[string]any{"storage_reads": false})
	checkStorageOff(t, r.ai)
	r.f.setCapture(t, map[string]any{"storage_reads": true})
	if res, _ := storageOf(t, r.ai, nil); obj(res, "localStorage")["count"] != float64(3) {
		t.Errorf("on again: %v", res)
	}
}

// TestStorageAtScaleFirefox: checkStorageAtScale in Firefox ESR.
func TestStorageAtScaleFirefox(t *testing.T) {
	r := newFoxRig(t, "ff-storage-scale-agent", map[string]any{})
	r.open(t, "/storage-big.html")
	r.waitStored(t)
	checkStorageAtScale(t, r.ai)
}
