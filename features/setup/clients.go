// Package setup adds `gasoline --mcp` to the configuration of the MCP
// clients a developer has installed, and takes it out again. Each client's
// file is edited in its own format (JSON, JSON with comments, TOML) without
// reformatting or dropping anything that is not ours.
package setup

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// ServerName is the key of our entry in every client's server table.
const ServerName = "gasoline"

// Env is the machine the clients are looked for on; tests fake it.
type Env struct {
	OS       string // runtime.GOOS values: linux, darwin, windows
	Home     string
	Getenv   func(string) string
	LookPath func(string) (string, error)
}

// HostEnv is this machine.
func HostEnv() (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, err
	}
	return Env{OS: runtime.GOOS, Home: home, Getenv: os.Getenv, LookPath: exec.LookPath}, nil
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// appData is where desktop apps keep per-user settings: Application
// Support on macOS, %APPDATA% on Windows, XDG_CONFIG_HOME on Linux.
func (e Env) appData() string {
	switch e.OS {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support")
	case "windows":
		if d := e.getenv("APPDATA"); d != "" {
			return d
		}
		return filepath.Join(e.Home, "AppData", "Roaming")
	}
	if d := e.getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	return filepath.Join(e.Home, ".config")
}

// Format is how a client's configuration file is written.
type Format int

const (
	// JSON is strict JSON: the client rejects comments and trailing commas.
	JSON Format = iota
	// JSONC is JSON with comments and trailing commas, which are kept.
	JSONC
	// TOML is Codex CLI's config.toml.
	TOML
)

func (f Format) String() string {
	return [...]string{"JSON", "JSON with comments", "TOML"}[f]
}

// Client is one MCP client: where its user-level configuration lives, the
// table its servers go in, and how to tell it is installed.
type Client struct {
	Name   string // what --client takes
	Title  string
	Format Format
	// Key is the table of servers: mcpServers, servers, context_servers…
	Key string
	// Typed clients want "type": "stdio" in each entry.
	Typed bool
	dir   func(Env) string // the folder of the config file
	file  string           // the config file inside dir
	// mark is the client's own folder, whose presence means installed;
	// nil: dir.
	mark func(Env) string
	bins []string // commands on PATH that also mean installed
}

// Path is the client's user-level configuration file.
func (c Client) Path(e Env) string { return filepath.Join(c.dir(e), c.file) }

// Installed reports whether the client appears to be installed: its
// folder (or file) exists, or its command is on PATH.
func (c Client) Installed(e Env) bool {
	mark := c.dir
	if c.mark != nil {
		mark = c.mark
	}
	if _, err := os.Stat(mark(e)); err == nil {
		return true
	}
	if _, err := os.Stat(c.Path(e)); err == nil {
		return true
	}
	for _, b := range c.bins {
		if e.LookPath == nil {
			break
		}
		if _, err := e.LookPath(b); err == nil {
			return true
		}
	}
	return false
}

func home(parts ...string) func(Env) string {
	return func(e Env) string { return filepath.Join(append([]string{e.Home}, parts...)...) }
}

// Clients are the supported clients, in the order setup reports them.
// Locations are the ones each client documents for user-level MCP servers.
func Clients() []Client {
	return []Client{
		// Claude Code keeps user-scope servers in ~/.claude.json, a file it
		// also writes its own state to; it is plain JSON.
		{Name: "claude-code", Title: "Claude Code", Format: JSON, Key: "mcpServers", Typed: true,
			dir: func(e Env) string { return e.Home }, file: ".claude.json", mark: home(".claude"), bins: []string{"claude"}},
		// Claude Desktop has no Linux build; ~/.config/Claude is where the
		// community builds read it.
		{Name: "claude-desktop", Title: "Claude Desktop", Format: JSON, Key: "mcpServers",
			dir: func(e Env) string { return filepath.Join(e.appData(), "Claude") }, file: "claude_desktop_config.json"},
		{Name: "cursor", Title: "Cursor", Format: JSON, Key: "mcpServers",
			dir: home(".cursor"), file: "mcp.json", bins: []string{"cursor"}},
		{Name: "windsurf", Title: "Windsurf", Format: JSON, Key: "mcpServers",
			dir: home(".codeium", "windsurf"), file: "mcp_config.json", bins: []string{"windsurf"}},
		// VS Code's user mcp.json sits in its User folder and allows comments.
		{Name: "vscode", Title: "VS Code", Format: JSONC, Key: "servers", Typed: true,
			dir: func(e Env) string { return filepath.Join(e.appData(), "Code", "User") }, file: "mcp.json", bins: []string{"code"}},
		// Gemini CLI strips comments from settings.json before parsing.
		{Name: "gemini", Title: "Gemini CLI", Format: JSONC, Key: "mcpServers",
			dir: home(".gemini"), file: "settings.json", bins: []string{"gemini"}},
		{Name: "zed", Title: "Zed", Format: JSONC, Key: "context_servers",
			dir: zedDir, file: "settings.json", bins: []string{"zed", "zeditor"}},
		{Name: "codex", Title: "Codex CLI", Format: TOML, Key: "mcp_servers",
			dir: codexDir, file: "config.toml", bins: []string{"codex"}},
	}
}

// zedDir is ~/.config/zed on Linux and macOS alike, %APPDATA%\Zed on Windows.
func zedDir(e Env) string {
	switch e.OS {
	case "windows":
		return filepath.Join(e.appData(), "Zed")
	case "darwin":
		return filepath.Join(e.Home, ".config", "zed")
	}
	return filepath.Join(e.appData(), "zed")
}

// codexDir honours CODEX_HOME, as Codex does.
func codexDir(e Env) string {
	if d := e.getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(e.Home, ".codex")
}

// Lookup finds a client by its --client name.
func Lookup(name string) (Client, bool) {
	for _, c := range Clients() {
		if c.Name == name {
			return c, true
		}
	}
	return Client{}, false
}

// Names lists the --client names.
func Names() []string {
	var out []string
	for _, c := range Clients() {
		out = append(out, c.Name)
	}
	return out
}

// Command is how a client starts Gasoline.
type Command struct {
	Path string // absolute path of the gasoline binary
	Args []string
}

// entry is our server entry as the client wants it; the field order is the
// order written.
type entry struct {
	Type    string   `json:"type,omitempty" toml:"type,omitempty"`
	Command string   `json:"command" toml:"command"`
	Args    []string `json:"args" toml:"args"`
}

func (c Client) entry(cmd Command) entry {
	e := entry{Command: cmd.Path, Args: append([]string{}, cmd.Args...)}
	if c.Typed {
		e.Type = "stdio"
	}
	return e
}
