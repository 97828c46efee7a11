package extension

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "extension")
	if err := Write(dir, Options{}); err != nil {
		t.Fatalf("Write: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatalf("manifest.json not written: %v", err)
	}
	var m struct {
		ManifestVersion int    `json:"manifest_version"`
		Key             string `json:"key"`
		Background      struct {
			ServiceWorker string `json:"service_worker"`
		} `json:"background"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("manifest.json is not JSON: %v", err)
	}
	if m.ManifestVersion != 3 {
		t.Errorf("manifest_version = %d, want 3", m.ManifestVersion)
	}
	if m.Key == "" {
		t.Error("manifest.json has no key: the extension id would not be pinned")
	}
	for _, name := range []string{m.Background.ServiceWorker, "page/inject.js", "content.js", "ui/popup.html", "ui/options.html"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s not written: %v", name, err)
			continue
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("%s mode = %v, want 0644", name, fi.Mode().Perm())
		}
	}
}

// Every script and page the manifest names is embedded: a content-script part
// or a generated file left out of the embed pattern would be missing from the
// extension the user loads.
func TestManifestFilesAreEmbedded(t *testing.T) {
	b, err := Files.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Background struct {
			ServiceWorker string `json:"service_worker"`
		}
		ContentScripts []struct{ JS []string } `json:"content_scripts"`
		Action         struct {
			Popup string `json:"default_popup"`
		}
		Options string `json:"options_page"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	names := []string{m.Background.ServiceWorker, m.Action.Popup, m.Options, "generated/constants.mjs"}
	for _, cs := range m.ContentScripts {
		names = append(names, cs.JS...)
	}
	for _, name := range names {
		if _, err := Files.ReadFile(name); err != nil {
			t.Errorf("%s is named but not embedded: %v", name, err)
		}
	}
}

// The content script's files, which the worker runs after a page's load
// (sw/documents.js), are embedded and are not also content scripts of the
// manifest, where every page would pay for them before its load (PERFORMANCE.md):
// there the isolated world has content/start.js alone.
func TestPartsRunAfterTheLoadOnly(t *testing.T) {
	b, err := Files.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ContentScripts []struct {
			JS    []string
			World string
		} `json:"content_scripts"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	worker, err := Files.ReadFile("sw/documents.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range m.ContentScripts {
		if cs.World != "MAIN" && !slices.Equal(cs.JS, []string{"content/start.js"}) {
			t.Errorf("isolated-world content scripts before the load: %v, want content/start.js alone", cs.JS)
		}
	}
	// start.js takes inject.js's port from the first hello: run in a page that has no inject.js
	// (opened before the extension), the first hello would be the page's.
	if strings.Contains(string(worker), "'content/start.js'") {
		t.Error("sw/documents.js runs content/start.js")
	}
	for _, part := range []string{"generated/constants.js", "content/scrub.js", "content/gate.js", "content.js", "content/actions.js", "content/queries.js", "content/pilot.js", "content/quiet.js", "content/act.js", "content/perf.js",
		"content/styles.js", "content/storage.js"} { // these two when a query asks (ON_DEMAND)
		if _, err := Files.ReadFile(part); err != nil {
			t.Errorf("%s is not embedded: %v", part, err)
		}
		if !strings.Contains(string(worker), "'"+part+"'") {
			t.Errorf("sw/documents.js does not run %s", part)
		}
		for _, cs := range m.ContentScripts {
			if slices.Contains(cs.JS, part) {
				t.Errorf("%s is a manifest content script: every page would run it before its load", part)
			}
		}
	}
}

// A port makes the worker's default address that port's, and nothing else changes.
func TestWriteWithPort(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, Options{Port: 7999}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(addressModule)))
	if err != nil {
		t.Fatal(err)
	}
	if want := `export const DEFAULT_SERVER_URL = "http://127.0.0.1:7999";`; !strings.Contains(string(b), want) {
		t.Errorf("address module = %q, want it to contain %q", b, want)
	}
	orig, _ := Files.ReadFile(addressModule)
	if !strings.Contains(string(orig), "'http://127.0.0.1:7890'") {
		t.Errorf("embedded address module lost the default: %q", orig)
	}
	for _, bad := range []Options{{Port: 70000}, {Port: -1}, {Browser: "netscape"}} {
		if err := Write(t.TempDir(), bad); err == nil {
			t.Errorf("Write(%+v) = nil, want an error", bad)
		}
	}
}
