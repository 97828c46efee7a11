package extension

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// GeckoID is the Firefox build's add-on id (browser_specific_settings.gecko.id).
// Firefox gives each install a random moz-extension://<uuid> origin anyway,
// so the server cannot pin it: it asks the human instead (see server/origins.go).
const GeckoID = "gasoline@gasoline.dev"

// platformModule is the worker's one per-browser module; Write replaces it
// for Firefox.
const platformModule = "sw/platform.js"

// PlatformModule is the source of sw/platform.js for browser ("chrome" or "firefox").
func PlatformModule(browser string) []byte {
	return []byte("// Written by gasoline: the browser this build is for (see extension/sw/platform.js).\n" +
		"export const BROWSER = " + strconv.Quote(browser) + ";\n")
}

// chromeOnlyPermissions are the Chrome manifest's permissions Firefox does
// not have: execute_js runs in the page's main world there instead.
var chromeOnlyPermissions = map[string]bool{"debugger": true}

// FirefoxManifest derives the Firefox manifest from the Chrome one: the
// background worker becomes a module background script (Firefox has no
// extension service worker), the key and Chrome-only fields and permissions
// go, the options page becomes options_ui, and the add-on gets its gecko id.
// Everything else (content scripts, MAIN-world injection, host permissions,
// popup) is shared as it is.
func FirefoxManifest(chrome []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(chrome, &m); err != nil {
		return nil, fmt.Errorf("decode manifest.json: %w", err)
	}
	bg, _ := m["background"].(map[string]any)
	worker, _ := bg["service_worker"].(string)
	if worker == "" {
		return nil, fmt.Errorf("manifest.json has no background.service_worker")
	}
	m["background"] = map[string]any{"scripts": []string{worker}, "type": "module"}
	delete(m, "key")
	delete(m, "minimum_chrome_version")
	if perms, ok := m["permissions"].([]any); ok {
		kept := []any{}
		for _, p := range perms {
			if s, _ := p.(string); !chromeOnlyPermissions[s] {
				kept = append(kept, p)
			}
		}
		m["permissions"] = kept
	}
	if page, ok := m["options_page"].(string); ok {
		delete(m, "options_page")
		m["options_ui"] = map[string]any{"page": page, "open_in_tab": true}
	}
	// Firefox's default MV3 policy adds upgrade-insecure-requests, which
	// turns ws://127.0.0.1 into wss:// and so kills the server's socket.
	m["content_security_policy"] = map[string]any{"extension_pages": "script-src 'self'"}
	m["browser_specific_settings"] = map[string]any{"gecko": map[string]any{
		"id": GeckoID,
		// world: "MAIN" content scripts need 128.
		"strict_min_version": "128.0",
		// Everything goes to a server on the user's own machine.
		"data_collection_permissions": map[string]any{"required": []string{"none"}},
	}}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode firefox manifest: %w", err)
	}
	return append(b, '\n'), nil
}
