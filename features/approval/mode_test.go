package approval

import "testing"

func TestMode(t *testing.T) {
	var m Mode
	if m.Asks() || m.String() != Auto {
		t.Fatalf("zero mode: %s", m.String())
	}
	for _, c := range []struct {
		set     string
		asks    bool
		changed bool
	}{
		{Ask, true, true},
		{Ask, true, false},
		{Auto, false, true},
		{"", false, false},
		{Ask, true, true},
		{"", false, true},
	} {
		if changed := m.Set(c.set); changed != c.changed || m.Asks() != c.asks {
			t.Fatalf("Set(%q): changed %v asks %v, want %v %v", c.set, changed, m.Asks(), c.changed, c.asks)
		}
		if want := map[bool]string{true: Ask, false: Auto}[c.asks]; m.String() != want {
			t.Fatalf("Set(%q): %s, want %s", c.set, m.String(), want)
		}
	}
}
