// Package extension holds Gasoline's MV3 extension, embedded so the gasoline
// binary can write out a copy for the user to load unpacked: one source, two
// builds (Chrome, Edge and Brave; Firefox), differing only in the manifest
// and the worker's platform module (sw/platform.js).
// generated/ is written from Go (the secret-name rule, the capture settings).
package extension

//go:generate go run ./gen

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Files is the extension as Chrome loads it: manifest.json, its three worlds
// (the page-world scripts in page/, the content scripts in content.js and
// content/, the service worker in background.js and sw/), the popup and
// options pages in ui/, and the constants generated from Go in generated/.
//
//go:embed manifest.json *.js lib content generated page ui sw/*.js
var Files embed.FS

// DefaultPort is the port the extension reports to unless written with another.
const DefaultPort = 7890

// addressModule is the one worker module that holds the default server
// address; Write replaces it when Options.Port is set.
const addressModule = "sw/address.js"

// Options says which build of the extension Write produces.
type Options struct {
	// Browser is "chrome" (also Edge and Brave) or "firefox"; empty means chrome.
	Browser string
	// Port is the server's port, the extension's default address; 0 means DefaultPort.
	Port int
}

// Write writes every file of the extension into dir, creating dir (and its
// parents) if needed. Files are written with mode 0o644 and replace any
// existing file of the same name; other files in dir are left alone.
func Write(dir string, o Options) error {
	firefox := false
	switch o.Browser {
	case "", "chrome":
	case "firefox":
		firefox = true
	default:
		return fmt.Errorf("unknown browser %q (want chrome or firefox)", o.Browser)
	}
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("port %d out of range 1-65535", o.Port)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return fs.WalkDir(Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := Files.ReadFile(path)
		if err != nil {
			return err
		}
		switch {
		case path == addressModule && o.Port != 0:
			b = AddressModule(fmt.Sprintf("http://127.0.0.1:%d", o.Port))
		case path == platformModule && firefox:
			b = PlatformModule("firefox")
		case path == "manifest.json" && firefox:
			if b, err = FirefoxManifest(b); err != nil {
				return err
			}
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return err
		}
		return os.Chmod(target, 0o644) // whatever the umask
	})
}

// AddressModule is the source of sw/address.js for a worker whose default
// server is serverURL (http://127.0.0.1:PORT).
func AddressModule(serverURL string) []byte {
	return []byte("// Written by gasoline: the server this extension reports to by default.\n" +
		"export const DEFAULT_SERVER_URL = " + strconv.Quote(serverURL) + ";\n")
}
