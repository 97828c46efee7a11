package tui

import (
	"testing"

	"github.com/gasoline-dev/gasoline/features/origins"
)

// popupNames name m.popups() in order, for the failures.
var popupNames = []string{"filter", "point", "copy", "approval", "recovery", "origins", "detail"}

// A pop-up takes keys only while it is open: a closed one must never
// swallow a pane's key (M and R, which switch the mode or bring the
// prompt back from anywhere, are the only exceptions, and not tried here).
func TestClosedPopupsTakeNoKey(t *testing.T) {
	m := sampleModel()
	if len(m.popups()) != len(popupNames) {
		t.Fatalf("%d pop-ups, %d names", len(m.popups()), len(popupNames))
	}
	for i, take := range m.popups() {
		for _, k := range []string{"y", "n", "a", "f", "j", "z", "enter", "esc", "x", "Y"} {
			if _, ok := take(keyMsg(k)); ok {
				t.Errorf("the closed %s took %q", popupNames[i], k)
			}
		}
	}
}

// Open, each pop-up takes the keys it is for, and the ones that are not
// text inputs or menus leave the rest to the dashboard.
func TestOpenPopupsTakeTheirKeys(t *testing.T) {
	for _, tc := range []struct {
		name      string
		open      func(m *Model)
		takes     []string
		leaves    []string // keys that go on down the chain
		popupSlot int
	}{
		{"filter", func(m *Model) { m.filter.open("") }, []string{"z", "q", "enter"}, nil, 0},
		{"point", func(m *Model) { m.point.open("console", []byte(`{}`), "a row", 80) }, []string{"z", "q", "5"}, nil, 1},
		{"copy", func(m *Model) { m.copy.show([]copyItem{{"l", "line as shown", "text"}}, "row") }, []string{"z", "q", "esc"}, nil, 2},
		{"approval", func(m *Model) { m.Update(sampleApproval()) }, []string{"y", "n", "down"}, []string{"z", "q", "tab"}, 3},
		{"recovery", sampleUnreadable, []string{"f", "esc"}, []string{"z", "q", "tab"}, 4},
		{"origins", func(m *Model) {
			m.Update(OriginsMsg{Pending: []origins.Request{{Origin: "moz-extension://x", Browser: "Firefox"}}})
		}, []string{"y", "n"}, []string{"z", "q", "tab"}, 5},
		{"detail", func(m *Model) { m.Update(keyMsg("enter")) }, []string{"j", "esc"}, []string{"q", "Y", "tab"}, 6},
	} {
		for _, k := range tc.takes {
			m := sampleModel()
			tc.open(m)
			if _, ok := m.popups()[tc.popupSlot](keyMsg(k)); !ok {
				t.Errorf("the open %s left %q", tc.name, k)
			}
		}
		for _, k := range tc.leaves {
			m := sampleModel()
			tc.open(m)
			if _, ok := m.popups()[tc.popupSlot](keyMsg(k)); ok {
				t.Errorf("the open %s took %q", tc.name, k)
			}
		}
	}
}
