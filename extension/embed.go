// Package extension holds Gasoline's Chrome (MV3) extension, embedded so the
// gasoline binary can write out a copy for the user to load unpacked.
// generated/ is written from Go (the secret-name rule, the capture settings).
package extension

//go:generate go run ./gen

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

// Files is the extension as Chrome loads it: manifest.json, the scripts (the
// content scripts' parts in content/, the service worker's modules in sw/,
// the constants generated from Go in generated/), the popup and options
// pages and their stylesheet.
//
//go:embed manifest.json *.js *.html *.css lib content generated sw/*.js
var Files embed.FS

// WriteTo writes every file of the extension into dir, creating dir (and its
// parents) if needed. Files are written with mode 0o644 and replace any
// existing file of the same name; other files in dir are left alone.
func WriteTo(dir string) error {
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
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return err
		}
		return os.Chmod(target, 0o644) // whatever the umask
	})
}
