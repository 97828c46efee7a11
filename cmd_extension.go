package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/gasoline-dev/gasoline/extension"
)

const extensionUsage = `Usage: gasoline extension DIR [--port N] [--browser chrome|firefox]

Writes the Gasoline extension to DIR (created if needed), with the
server's address, http://127.0.0.1:PORT, as the one it reports to, and
says how to load it.

Flags:
  --port N           the server's port (default %d, env GASOLINE_PORT)
  --browser NAME     chrome (also Edge and Brave) or firefox (default chrome)
`

// runExtension is `gasoline extension DIR`.
func runExtension(_ context.Context, args []string, stdout, stderr io.Writer) int {
	f := newSubFlags("extension", fmt.Sprintf(extensionUsage, defaultPort), stdout, stderr)
	f.maxArgs = 1
	browser := f.String("browser", "chrome", "")
	if code := f.parse(args); code >= 0 {
		return code
	}
	if len(f.args) == 0 {
		return f.fail("say which folder to write the extension to: gasoline extension DIR")
	}
	if *browser != "chrome" && *browser != "firefox" {
		return f.fail("--browser %q: want chrome or firefox", *browser)
	}
	dir, err := filepath.Abs(f.args[0])
	if err != nil {
		fmt.Fprintln(stderr, "gasoline extension:", err)
		return 1
	}
	if err := extension.Write(dir, extension.Options{Browser: *browser, Port: f.port}); err != nil {
		fmt.Fprintln(stderr, "gasoline extension: write the extension:", err)
		return 1
	}
	fmt.Fprintf(stdout, "Wrote the Gasoline extension, reporting to %s, to %s.\n%s", serverURL(f.port), dir, loadSteps(*browser, dir))
	return 0
}

// serverURL is the address of the server on port, as the extension uses it.
func serverURL(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }

// loadSteps says how to load the extension in dir into the browser.
func loadSteps(browser, dir string) string {
	if browser == "firefox" {
		return "In Firefox: about:debugging#/runtime/this-firefox → Load Temporary Add-on → " + filepath.Join(dir, "manifest.json") + "\n" +
			"The first time it connects, accept it in the dashboard (y): Firefox gives each install its own origin.\n"
	}
	return "In Chrome: chrome://extensions → Developer mode → Load unpacked → " + dir + "\n"
}
