package setup

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/setup/golden")

var (
	gasoline = Command{Path: "/opt/gasoline/bin/gasoline", Args: []string{"--mcp"}}
	onPort   = Command{Path: "/opt/gasoline/bin/gasoline", Args: []string{"--mcp", "--port", "9000"}}
	now      = time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
)

const fixtures = "../../testdata/setup/"

// testEnv is a Linux machine with an empty home and nothing on PATH.
func testEnv(t *testing.T) Env {
	home := t.TempDir()
	return Env{OS: "linux", Home: home, Getenv: func(string) string { return "" },
		LookPath: func(string) (string, error) { return "", exec.ErrNotFound }}
}

func client(t *testing.T, name string) Client {
	t.Helper()
	c, ok := Lookup(name)
	if !ok {
		t.Fatalf("no client %q", name)
	}
	return c
}

// place copies a fixture to the client's config path (mode 0600).
func place(t *testing.T, c Client, env Env, fixture string) []byte {
	t.Helper()
	if fixture == "" {
		return nil
	}
	b, err := os.ReadFile(fixtures + fixture)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Path(env)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := fixtures + "golden/" + name + ".golden"
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./features/setup -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

func plan(t *testing.T, c Client, env Env, cmd Command, remove bool, want Action) *Change {
	t.Helper()
	ch, err := Plan(c, env, cmd, remove)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if ch.Action != want {
		t.Fatalf("action = %q, want %q\n%s", ch.Action, want, ch.Diff)
	}
	if err := ch.Apply(now); err != nil {
		t.Fatalf("apply: %v", err)
	}
	return ch
}

// TestSetup adds our entry to each client's real config, compares the
// result with its golden file, and checks idempotence, the backup, the
// file mode, and that removing gives the original back byte for byte.
func TestSetup(t *testing.T) {
	cases := []struct {
		name, client, fixture string
		cmd                   Command
		action                Action // of the add; Added unless given
	}{
		{name: "claude-code", client: "claude-code", fixture: "claude-code/claude.json"},
		{name: "claude-code-fresh", client: "claude-code", fixture: "claude-code/fresh.json"},
		{name: "claude-desktop", client: "claude-desktop", fixture: "claude-desktop/claude_desktop_config.json"},
		{name: "cursor", client: "cursor", fixture: "cursor/mcp.json"},
		{name: "cursor-port", client: "cursor", fixture: "cursor/mcp.json", cmd: onPort},
		{name: "cursor-new-file", client: "cursor"},
		{name: "cursor-update", client: "cursor", fixture: "cursor/old-port.json", action: Updated},
		{name: "windsurf", client: "windsurf", fixture: "windsurf/mcp_config.json"},
		{name: "vscode", client: "vscode", fixture: "vscode/mcp.json"},
		{name: "gemini", client: "gemini", fixture: "gemini/settings.json"},
		{name: "zed", client: "zed", fixture: "zed/settings.json"},
		{name: "zed-servers", client: "zed", fixture: "zed/with-servers.json"},
		{name: "codex", client: "codex", fixture: "codex/config.toml"},
		{name: "codex-new-file", client: "codex"},
		{name: "codex-update", client: "codex", fixture: "codex/old.toml", action: Updated},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, env := client(t, tc.client), testEnv(t)
			cmd, action := tc.cmd, tc.action
			if cmd.Path == "" {
				cmd = gasoline
			}
			if action == "" {
				action = Added
			}
			orig := place(t, c, env, tc.fixture)
			ch := plan(t, c, env, cmd, false, action)
			got, err := os.ReadFile(c.Path(env))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, got)
			st, _ := os.Stat(c.Path(env))
			if tc.fixture != "" && st.Mode().Perm() != 0o600 {
				t.Errorf("mode = %v, want the original 0600", st.Mode().Perm())
			}
			if tc.fixture == "" {
				if ch.Backup != "" {
					t.Errorf("backup %s of a file that did not exist", ch.Backup)
				}
			} else if b, err := os.ReadFile(ch.Backup); err != nil || string(b) != string(orig) {
				t.Errorf("backup %q holds %q (%v), want the original", ch.Backup, b, err)
			}
			if again := plan(t, c, env, cmd, false, Unchanged); again.Diff != "" {
				t.Errorf("a second setup has a diff:\n%s", again.Diff)
			}
			st2, err := Inspect(c, env)
			if err != nil || st2.Entry == nil || st2.Entry.Path != cmd.Path || !slices.Equal(st2.Entry.Args, cmd.Args) {
				t.Errorf("inspect = %+v, %v; want our command", st2.Entry, err)
			}

			plan(t, c, env, cmd, true, Removed)
			after, _ := os.ReadFile(c.Path(env))
			switch {
			case action == Updated:
				golden(t, tc.name+".removed", after)
			case tc.fixture == "":
				if s := strings.TrimSpace(string(after)); s != "{}" && s != "" {
					t.Errorf("after remove the new file holds %q", after)
				}
			case string(after) != string(orig):
				t.Errorf("remove did not restore the original:\n%s", after)
			}
			plan(t, c, env, cmd, true, Absent)
		})
	}
}

// TestDryRunDiff: Plan writes nothing and says what Apply would do.
func TestDryRunDiff(t *testing.T) {
	c, env := client(t, "codex"), testEnv(t)
	orig := place(t, c, env, "codex/config.toml")
	ch, err := Plan(c, env, gasoline, false)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(c.Path(env)); string(b) != string(orig) {
		t.Fatal("Plan changed the file")
	}
	golden(t, "codex.diff", []byte(strings.ReplaceAll(ch.Diff, env.Home, "$HOME")))
}

// TestRefused: a file that does not parse, or where our entry cannot go,
// is an error naming the file and line, and is left untouched.
func TestRefused(t *testing.T) {
	cases := []struct {
		client, fixture, want string
	}{
		{"cursor", "cursor/malformed.json", "line 5, column 7: invalid character '\"' after object value"},
		{"cursor", "cursor/comments.json", "line 2, column 3: invalid character '/'"},
		{"cursor", "cursor/not-object.json", `line 2: "mcpServers" is not an object`},
		{"zed", "zed/malformed.json", "line 7"},
		{"codex", "codex/malformed.toml", "line 5"},
		{"codex", "codex/inline.toml", "add it by hand"},
	}
	for _, tc := range cases {
		for _, remove := range []bool{false, true} {
			t.Run(tc.fixture, func(t *testing.T) {
				c, env := client(t, tc.client), testEnv(t)
				orig := place(t, c, env, tc.fixture)
				ch, err := Plan(c, env, gasoline, remove)
				if tc.fixture == "codex/inline.toml" && remove {
					if err != nil || ch.Action != Absent {
						t.Fatalf("remove from a file without us: %v %v", ch, err)
					}
					return
				}
				if err == nil {
					t.Fatalf("no error; diff:\n%s", ch.Diff)
				}
				if !strings.Contains(err.Error(), c.Path(env)+": ") || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %q does not name the file and %q", err, tc.want)
				}
				if b, _ := os.ReadFile(c.Path(env)); string(b) != string(orig) {
					t.Error("the file changed")
				}
				if ents, _ := os.ReadDir(filepath.Dir(c.Path(env))); len(ents) != 1 {
					t.Errorf("the folder holds %d files, want only the config", len(ents))
				}
			})
		}
	}
}

// TestCRLF: a file with Windows line endings keeps them, ours included,
// and comes back byte for byte on remove.
func TestCRLF(t *testing.T) {
	for _, name := range []string{"vscode", "codex"} {
		c, env := client(t, name), testEnv(t)
		fixture := map[string]string{"vscode": "vscode/mcp.json", "codex": "codex/config.toml"}[name]
		lf := place(t, c, env, fixture)
		crlf := strings.ReplaceAll(string(lf), "\n", "\r\n")
		os.WriteFile(c.Path(env), []byte(crlf), 0o600)
		plan(t, c, env, gasoline, false, Added)
		b, _ := os.ReadFile(c.Path(env))
		if n := strings.Count(string(b), "\n"); n != strings.Count(string(b), "\r\n") || n <= strings.Count(crlf, "\n") {
			t.Errorf("%s: mixed or unchanged line endings:\n%q", name, b)
		}
		plan(t, c, env, gasoline, true, Removed)
		if b, _ := os.ReadFile(c.Path(env)); string(b) != crlf {
			t.Errorf("%s: remove gave %q", name, b)
		}
	}
}

// TestSymlinkedConfig: a config kept elsewhere and linked in stays linked.
func TestSymlinkedConfig(t *testing.T) {
	c, env := client(t, "cursor"), testEnv(t)
	real := filepath.Join(env.Home, "dotfiles", "mcp.json")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.MkdirAll(filepath.Dir(c.Path(env)), 0o755)
	if err := os.WriteFile(real, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, c.Path(env)); err != nil {
		t.Fatal(err)
	}
	plan(t, c, env, gasoline, false, Added)
	if fi, err := os.Lstat(c.Path(env)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), gasoline.Path) {
		t.Errorf("the linked file was not updated: %s", b)
	}
}

// TestChangedSincePlan: Apply does not overwrite an edit made after Plan.
func TestChangedSincePlan(t *testing.T) {
	c, env := client(t, "cursor"), testEnv(t)
	place(t, c, env, "cursor/mcp.json")
	ch, err := Plan(c, env, gasoline, false)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(c.Path(env), []byte(`{"mcpServers":{}}`), 0o600)
	if err := ch.Apply(now); err == nil || !strings.Contains(err.Error(), "changed while setup ran") {
		t.Fatalf("apply = %v", err)
	}
	if b, _ := os.ReadFile(c.Path(env)); string(b) != `{"mcpServers":{}}` {
		t.Errorf("the newer edit was overwritten: %s", b)
	}
}

// TestBackupNames: two changes in one second keep both originals.
func TestBackupNames(t *testing.T) {
	c, env := client(t, "cursor"), testEnv(t)
	place(t, c, env, "cursor/mcp.json")
	a := plan(t, c, env, gasoline, false, Added)
	b := plan(t, c, env, gasoline, true, Removed)
	if a.Backup == b.Backup || !strings.HasSuffix(a.Backup, ".gasoline-backup-20261123T030000Z") {
		t.Errorf("backups %q and %q", a.Backup, b.Backup)
	}
}

func TestPaths(t *testing.T) {
	vars := map[string]string{"APPDATA": `C:\Users\dev\AppData\Roaming`, "XDG_CONFIG_HOME": "/xdg", "CODEX_HOME": "/codex"}
	cases := []struct {
		os, client string
		env        bool
		want       string
	}{
		{"linux", "claude-code", false, "/h/.claude.json"},
		{"darwin", "claude-desktop", false, "/h/Library/Application Support/Claude/claude_desktop_config.json"},
		{"windows", "claude-desktop", true, `C:\Users\dev\AppData\Roaming/Claude/claude_desktop_config.json`},
		{"linux", "claude-desktop", false, "/h/.config/Claude/claude_desktop_config.json"},
		{"linux", "cursor", false, "/h/.cursor/mcp.json"},
		{"linux", "windsurf", false, "/h/.codeium/windsurf/mcp_config.json"},
		{"linux", "vscode", false, "/h/.config/Code/User/mcp.json"},
		{"linux", "vscode", true, "/xdg/Code/User/mcp.json"},
		{"darwin", "vscode", false, "/h/Library/Application Support/Code/User/mcp.json"},
		{"linux", "gemini", false, "/h/.gemini/settings.json"},
		{"linux", "zed", false, "/h/.config/zed/settings.json"},
		{"darwin", "zed", true, "/h/.config/zed/settings.json"},
		{"linux", "codex", false, "/h/.codex/config.toml"},
		{"linux", "codex", true, "/codex/config.toml"},
	}
	for _, tc := range cases {
		env := Env{OS: tc.os, Home: "/h", Getenv: func(string) string { return "" }}
		if tc.env {
			env.Getenv = func(k string) string { return vars[k] }
		}
		if got := client(t, tc.client).Path(env); filepath.ToSlash(got) != tc.want {
			t.Errorf("%s on %s (env %v) = %s, want %s", tc.client, tc.os, tc.env, got, tc.want)
		}
	}
}

func TestInstalled(t *testing.T) {
	env := testEnv(t)
	for _, c := range Clients() {
		if c.Installed(env) {
			t.Errorf("%s is installed in an empty home", c.Name)
		}
	}
	os.MkdirAll(filepath.Join(env.Home, ".cursor"), 0o755)
	os.WriteFile(filepath.Join(env.Home, ".claude.json"), []byte("{}"), 0o600)
	env.LookPath = func(b string) (string, error) {
		if b == "codex" {
			return "/usr/bin/codex", nil
		}
		return "", exec.ErrNotFound
	}
	var got []string
	for _, c := range Clients() {
		if c.Installed(env) {
			got = append(got, c.Name)
		}
	}
	if want := []string{"claude-code", "cursor", "codex"}; !slices.Equal(got, want) {
		t.Errorf("installed = %v, want %v", got, want)
	}
}
