package decisions

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/origins"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "decisions.json")
	at := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	want := State{Revoked: map[string]time.Time{"ws_mode": at}, PilotBlocked: true, Approval: ApprovalAsk,
		AIOverrides: map[string]any{"log_level": "all"},
		Origins:     []origins.Decision{{Origin: "moz-extension://6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91", Accepted: true, Browser: "Firefox 153", At: at}}}
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.tmp*"))
	if len(left) > 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

func TestLoadMissingIsEmpty(t *testing.T) {
	st, err := Load(filepath.Join(t.TempDir(), "none.json"))
	if err != nil || st.Summary() != "" || st.PilotBlocked {
		t.Fatalf("got %+v, %v", st, err)
	}
}

func TestLoadRefusesGarbageAndOversize(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o600)
	if _, err := Load(bad); err == nil {
		t.Fatal("garbage accepted")
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, make([]byte, maxFile+10), 0o600)
	if _, err := Load(big); err == nil {
		t.Fatal("oversized file accepted")
	}
}

func TestUnknownApprovalErrsOnAsk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.json")
	os.WriteFile(path, []byte(`{"approval":"maybe"}`), 0o600)
	st, err := Load(path)
	if err != nil || st.Approval != ApprovalAsk {
		t.Fatalf("got %+v, %v", st, err)
	}
}

func TestSummary(t *testing.T) {
	st := State{Revoked: map[string]time.Time{"ws_mode": {}, "log_level": {}}, PilotBlocked: true}
	if got, want := st.Summary(), "log_level, ws_mode revoked · pilot blocked"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	st = State{Origins: []origins.Decision{{Origin: "moz-extension://a", Accepted: true}, {Origin: "moz-extension://b"}}}
	if got, want := st.Summary(), "1 extension origin(s) accepted"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// What is not one JSON object of the state is an error, never "no
// decisions": null and an empty file used to read as the empty state.
func TestLoadRefusesWhatIsNotAnObject(t *testing.T) {
	dir := t.TempDir()
	for _, body := range []string{"null", " null\n", "", "[]", `"x"`, "7"} {
		path := filepath.Join(dir, "d.json")
		os.WriteFile(path, []byte(body), 0o600)
		if st, err := Load(path); err == nil {
			t.Fatalf("%q read as %+v", body, st)
		}
	}
	if _, err := Load(dir); err == nil {
		t.Fatal("a directory read as the empty state")
	}
}

// KeepAside names the kept file for its time and never replaces an
// earlier kept file of the same second.
func TestKeepAsideNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "decisions-1.json")
	at := time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC)
	var kept []string
	for _, body := range []string{"first", "second", "third"} {
		os.WriteFile(path, []byte(body), 0o600)
		k, err := KeepAside(path, at)
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, k)
	}
	if kept[0] != path+".unreadable-20261127T220000Z" || kept[1] != kept[0]+"-2" {
		t.Fatalf("kept as %v", kept)
	}
	for i, body := range []string{"first", "second", "third"} {
		if b, _ := os.ReadFile(kept[i]); string(b) != body {
			t.Fatalf("%s holds %q, want %q", kept[i], b, body)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the path is not free: %v", err)
	}
}

// Issue 41: the folder is 0700 and what it holds loses every group and
// other permission at start, in subfolders too; a link is not followed.
func TestProtect(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".gasoline")
	os.MkdirAll(filepath.Join(dir, "screenshots"), 0o755)
	os.Chmod(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "audit.jsonl"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "screenshots", "error-1.png"), []byte("x"), 0o644)
	outside := filepath.Join(t.TempDir(), "elsewhere")
	os.WriteFile(outside, []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link"))
	if err := Protect(dir); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		dir: 0o700, filepath.Join(dir, "screenshots"): 0o700, filepath.Join(dir, "audit.jsonl"): 0o600,
		filepath.Join(dir, "screenshots", "error-1.png"): 0o600, outside: 0o644,
	} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, want %v (%v)", path, fi.Mode().Perm(), want, err)
		}
	}
}
