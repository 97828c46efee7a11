package reads

import "testing"

// A call's record shows declared names, numbers, booleans and declared
// values; never a free-text value, an undeclared name or the selector.
func TestDeclaredShowsOnlyWhatIsDeclared(t *testing.T) {
	d := Declared{"what": {"logs", "errors"}, "level": {"warn", "error"}, "url_filter": nil, "limit": nil, "refresh": nil}
	if got := d.Value("what", "logs"); got != "logs" {
		t.Errorf("declared mode: %q", got)
	}
	if got := d.Value("what", "secret-token"); got != "?" {
		t.Errorf("undeclared mode: %q", got)
	}
	if got := d.Value("what", nil); got != "" {
		t.Errorf("no mode: %q", got)
	}
	args := map[string]any{"what": "logs", "level": "warn", "url_filter": "token=abc", "limit": 5.0, "refresh": true, "made_up": "x"}
	if got := d.Asked("what", args); got != "level=warn limit=5 refresh=true url_filter" {
		t.Errorf("asked: %q", got)
	}
	if got := d.Asked("what", map[string]any{"level": "token=abc"}); got != "level" {
		t.Errorf("an undeclared value of a declared parameter: %q", got)
	}
}
