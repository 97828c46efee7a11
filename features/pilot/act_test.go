package pilot

import (
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/problem"
)

func TestActChecks(t *testing.T) {
	f := false
	for _, tc := range []struct {
		a    Action
		want string // "" = accepted; else a piece of the invalid_param message
	}{
		{Action{Name: "navigate", Act: Act{URL: "https://example.test/x"}}, ""},
		{Action{Name: "navigate"}, "url is required"},
		{Action{Name: "navigate", Act: Act{URL: "javascript:alert(1)"}}, "http:// and https://"},
		{Action{Name: "navigate", Act: Act{URL: "file:///etc/passwd"}}, "http:// and https://"},
		{Action{Name: "navigate", Act: Act{URL: "chrome://settings"}}, "http:// and https://"},
		{Action{Name: "reload"}, ""},
		{Action{Name: "click"}, "needs a target"},
		{Action{Name: "click", Selector: "#a", Act: Act{Ref: "ab12"}}, "one target"},
		{Action{Name: "click", Act: Act{Text: "Add"}}, ""},
		{Action{Name: "click", Act: Act{Ref: strings.Repeat("x", 41)}}, "short name"},
		{Action{Name: "type", Act: Act{Text: "hi"}}, "selector or ref"},
		{Action{Name: "type", Selector: "#q"}, "text (what to type) is required"},
		{Action{Name: "type", Selector: "#q", Act: Act{Text: "hi", Clear: &f}}, ""},
		{Action{Name: "select", Selector: "#s"}, "value"},
		{Action{Name: "press_key", Act: Act{Key: "Enter"}}, ""},
		{Action{Name: "press_key", Act: Act{Key: "Hyper+q"}}, "not a modifier"},
		{Action{Name: "press_key"}, "key is required"},
		{Action{Name: "scroll"}, "scroll needs"},
		{Action{Name: "scroll", Selector: "#a", Act: Act{To: "top"}}, "not both"},
		{Action{Name: "scroll", Act: Act{To: "bottom"}}, ""},
		{Action{Name: "wait_for"}, "text or selector"},
		{Action{Name: "wait_for", Selector: "#a", Act: Act{Text: "x"}}, "one of them"},
		{Action{Name: "wait_for", Act: Act{Text: "x"}, TimeoutMS: 30001}, "at most 30000"},
		{Action{Name: "click", Selector: "#a", Act: Act{State: "hidden"}}, "wait_for only"},
	} {
		err := tc.a.Check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %+v: refused: %v", tc.a.Name, tc.a.Act, err)
		case tc.want != "" && (err == nil || problem.From(err).Code != problem.InvalidParam || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %+v: want invalid_param with %q, got %v", tc.a.Name, tc.a.Act, tc.want, err)
		}
	}
	w := Action{Name: "wait_for", Act: Act{Text: "x"}}
	if err := w.Check(); err != nil || w.TimeoutMS != DefaultWaitMS || w.State != "visible" {
		t.Fatalf("wait_for defaults: %+v %v", w, err)
	}
	if w.Timeout() <= w.Timeout()-actReplyGrace {
		t.Fatal("wait_for's timeout leaves no time to answer")
	}
}

func TestParseKey(t *testing.T) {
	for in, want := range map[string]Key{
		"Enter":       {Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r"},
		"escape":      {Key: "Escape", Code: "Escape", KeyCode: 27},
		"Control+a":   {Key: "a", Code: "KeyA", KeyCode: 65, Text: "a", Ctrl: true},
		"Shift+Tab":   {Key: "Tab", Code: "Tab", KeyCode: 9, Shift: true},
		"Meta+Enter":  {Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r", Meta: true},
		"A":           {Key: "A", Code: "KeyA", KeyCode: 65, Text: "A", Shift: true},
		"Shift+b":     {Key: "B", Code: "KeyB", KeyCode: 66, Text: "B", Shift: true},
		"7":           {Key: "7", Code: "Digit7", KeyCode: 55, Text: "7"},
		"Control++":   {Key: "+", Text: "+", Ctrl: true},
		"ArrowDown":   {Key: "ArrowDown", Code: "ArrowDown", KeyCode: 40},
		"Alt+Shift+x": {Key: "X", Code: "KeyX", KeyCode: 88, Text: "X", Alt: true, Shift: true},
	} {
		got, err := ParseKey(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "Hyper+a", "F13", "Control+", "ab"} {
		if _, err := ParseKey(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	if !SameOrigin("http://a.test:8/x", "http://a.test:8/y?q") || SameOrigin("http://a.test/", "https://a.test/") || SameOrigin("http://a.test/", "http://b.test/") {
		t.Fatal("SameOrigin")
	}
}
