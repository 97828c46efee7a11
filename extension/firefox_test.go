package extension

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The Firefox build is the Chrome build's files, byte for byte, except the
// manifest and the platform module.
func TestWriteFirefox(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, Options{Browser: "firefox", Port: 7999}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Key        *string `json:"key"`
		MinChrome  *string `json:"minimum_chrome_version"`
		Background struct {
			ServiceWorker string   `json:"service_worker"`
			Scripts       []string `json:"scripts"`
			Type          string   `json:"type"`
		} `json:"background"`
		Permissions     []string          `json:"permissions"`
		HostPermissions []string          `json:"host_permissions"`
		CSP             map[string]string `json:"content_security_policy"`
		OptionsPage     *string           `json:"options_page"`
		OptionsUI       struct {
			Page string `json:"page"`
		} `json:"options_ui"`
		Gecko struct {
			Gecko struct {
				ID         string `json:"id"`
				MinVersion string `json:"strict_min_version"`
			} `json:"gecko"`
		} `json:"browser_specific_settings"`
		ContentScripts []struct {
			World string   `json:"world"`
			JS    []string `json:"js"`
		} `json:"content_scripts"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	if m.Key != nil || m.MinChrome != nil || m.OptionsPage != nil || m.Background.ServiceWorker != "" {
		t.Errorf("Chrome-only fields left: %s", b)
	}
	if !slices.Equal(m.Background.Scripts, []string{"background.js"}) || m.Background.Type != "module" {
		t.Errorf("background: %+v", m.Background)
	}
	if slices.Contains(m.Permissions, "debugger") || !slices.Contains(m.Permissions, "scripting") || !slices.Contains(m.HostPermissions, "<all_urls>") {
		t.Errorf("permissions: %v %v", m.Permissions, m.HostPermissions)
	}
	if m.CSP["extension_pages"] != "script-src 'self'" {
		t.Errorf("CSP %v: Firefox's default upgrades ws://127.0.0.1 to wss://", m.CSP)
	}
	if m.Gecko.Gecko.ID != GeckoID || m.Gecko.Gecko.MinVersion != "128.0" || m.OptionsUI.Page != "ui/options.html" {
		t.Errorf("gecko %+v options %+v", m.Gecko, m.OptionsUI)
	}
	if len(m.ContentScripts) != 2 || m.ContentScripts[1].World != "MAIN" {
		t.Errorf("content scripts: %+v", m.ContentScripts)
	}
	if p, _ := os.ReadFile(filepath.Join(dir, "sw", "platform.js")); !bytes.Contains(p, []byte(`BROWSER = "firefox"`)) {
		t.Errorf("platform module: %s", p)
	}
	chrome, _ := Files.ReadFile(platformModule)
	if !bytes.Contains(chrome, []byte(`BROWSER = 'chrome'`)) {
		t.Errorf("embedded platform module: %s", chrome)
	}
	err = fs.WalkDir(Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == "manifest.json" || path == platformModule || path == addressModule {
			return err
		}
		want, _ := Files.ReadFile(path)
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the Chrome build (%v)", path, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
