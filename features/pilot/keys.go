package pilot

import (
	"strings"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// Key is a key press as the extension sends it: the DOM's key and code,
// the Windows virtual key code chrome.debugger wants, the text the key
// types, and the modifiers held.
type Key struct {
	Key     string `json:"key"`
	Code    string `json:"code,omitempty"`
	KeyCode int    `json:"keyCode,omitempty"`
	Text    string `json:"text,omitempty"`
	Ctrl    bool   `json:"ctrl,omitempty"`
	Shift   bool   `json:"shift,omitempty"`
	Alt     bool   `json:"alt,omitempty"`
	Meta    bool   `json:"meta,omitempty"`
}

var namedKeys = map[string]Key{
	"enter":      {Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r"},
	"escape":     {Key: "Escape", Code: "Escape", KeyCode: 27},
	"tab":        {Key: "Tab", Code: "Tab", KeyCode: 9},
	"backspace":  {Key: "Backspace", Code: "Backspace", KeyCode: 8},
	"delete":     {Key: "Delete", Code: "Delete", KeyCode: 46},
	"arrowup":    {Key: "ArrowUp", Code: "ArrowUp", KeyCode: 38},
	"arrowdown":  {Key: "ArrowDown", Code: "ArrowDown", KeyCode: 40},
	"arrowleft":  {Key: "ArrowLeft", Code: "ArrowLeft", KeyCode: 37},
	"arrowright": {Key: "ArrowRight", Code: "ArrowRight", KeyCode: 39},
	"home":       {Key: "Home", Code: "Home", KeyCode: 36},
	"end":        {Key: "End", Code: "End", KeyCode: 35},
	"pageup":     {Key: "PageUp", Code: "PageUp", KeyCode: 33},
	"pagedown":   {Key: "PageDown", Code: "PageDown", KeyCode: 34},
	"space":      {Key: " ", Code: "Space", KeyCode: 32, Text: " "},
}

// KeyNames is what press_key accepts, for its errors.
const KeyNames = "Enter, Escape, Tab, Backspace, Delete, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, Space or one character, after modifiers like Control+, Shift+, Alt+, Meta+"

// ParseKey reads "Enter", "Control+a", "Shift+Tab".
func ParseKey(s string) (Key, error) {
	if s == "" {
		return Key{}, problem.New(problem.InvalidParam, "key is required for press_key: %s", KeyNames)
	}
	parts := strings.Split(s, "+")
	if strings.HasSuffix(s, "++") || s == "+" { // Control++ is the plus key
		parts = append(strings.Split(strings.TrimSuffix(s, "++"), "+"), "+")
		if s == "+" {
			parts = []string{"+"}
		}
	}
	var k Key
	var mods Key
	for _, m := range parts[:len(parts)-1] {
		switch strings.ToLower(m) {
		case "control", "ctrl":
			mods.Ctrl = true
		case "shift":
			mods.Shift = true
		case "alt", "option":
			mods.Alt = true
		case "meta", "cmd", "command":
			mods.Meta = true
		default:
			return Key{}, problem.New(problem.InvalidParam, "press_key: %s is not a modifier; it takes %s", quote(m), KeyNames)
		}
	}
	last := parts[len(parts)-1]
	if named, ok := namedKeys[strings.ToLower(last)]; ok {
		k = named
	} else if r := []rune(last); len(r) == 1 && r[0] >= ' ' && r[0] != 0x7f {
		k = charKey(r[0])
	} else {
		return Key{}, problem.New(problem.InvalidParam, "press_key does not know the key %s; it takes %s", quote(s), KeyNames)
	}
	k.Ctrl, k.Shift, k.Alt, k.Meta = mods.Ctrl, mods.Shift || k.Shift, mods.Alt, mods.Meta
	if k.Shift && len(k.Text) == 1 && k.Text[0] >= 'a' && k.Text[0] <= 'z' {
		k.Key, k.Text = strings.ToUpper(k.Key), strings.ToUpper(k.Text)
	}
	return k, nil
}

func charKey(r rune) Key {
	s := string(r)
	k := Key{Key: s, Text: s}
	switch {
	case r >= 'a' && r <= 'z':
		k.Code, k.KeyCode = "Key"+strings.ToUpper(s), int(r-'a'+'A')
	case r >= 'A' && r <= 'Z':
		k.Code, k.KeyCode, k.Shift = "Key"+s, int(r), true
	case r >= '0' && r <= '9':
		k.Code, k.KeyCode = "Digit"+s, int(r)
	}
	return k
}
