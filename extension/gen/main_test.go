package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The committed files are what the generator writes now: a setting or a
// secret name added on the Go side only (or in the JavaScript only) fails
// here until `go generate ./extension/` is run and its output committed.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	for name, want := range Files() {
		got, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(name)))
		if err != nil {
			t.Fatalf("%s: %v (run go generate ./extension/)", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("extension/%s is stale: run go generate ./extension/ and commit the result", name)
		}
	}
}
