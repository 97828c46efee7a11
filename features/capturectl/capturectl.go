// Package capturectl lets the AI adjust what the extension captures for the
// session, and lets the human veto it: overrides live in memory only, at
// most one change per second, every change is alerted and audited, and a
// setting the human revoked stays out of the AI's reach until allowed.
package capturectl

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// MinInterval is the rate limit on AI changes.
const MinInterval = time.Second

// Setting is one controllable capture setting.
type Setting struct {
	Name    string
	Values  []string // allowed values; booleans are "true"/"false"
	Default any
	Bool    bool
}

// Settings are the five capture settings, with the user's defaults.
var Settings = []Setting{
	{Name: "log_level", Values: []string{"error", "warn", "all"}, Default: "error"},
	{Name: "ws_mode", Values: []string{"off", "lifecycle", "messages"}, Default: "lifecycle"},
	{Name: "network_bodies", Values: []string{"true", "false"}, Default: true, Bool: true},
	{Name: "screenshot_on_error", Values: []string{"true", "false"}, Default: false, Bool: true},
	{Name: "action_replay", Values: []string{"true", "false"}, Default: true, Bool: true},
}

// HumanSettings are the human's alone: the options page sets them, the
// extension takes no override of them, and configure refuses to change them.
var HumanSettings = []Setting{
	{Name: "ai_screenshots", Values: []string{"true", "false"}, Default: true, Bool: true},
	// observe{what:"storage"}: the page's storage, cookies and IndexedDB, scrubbed.
	{Name: "storage_reads", Values: []string{"true", "false"}, Default: true, Bool: true},
}

func humanOnly(name string) bool {
	return slices.ContainsFunc(HumanSettings, func(s Setting) bool { return s.Name == name })
}

func setting(name string) (Setting, bool) {
	i := slices.IndexFunc(Settings, func(s Setting) bool { return s.Name == name })
	if i < 0 {
		return Setting{}, false
	}
	return Settings[i], true
}

// Names lists the settings in their fixed order.
func Names() []string {
	out := make([]string, len(Settings))
	for i, s := range Settings {
		out[i] = s.Name
	}
	return out
}

// Override is one active AI override.
type Override struct {
	Value     any       `json:"value"`
	Default   any       `json:"default"`
	ChangedAt time.Time `json:"changed_at"`
	Agent     string    `json:"agent,omitempty"`
}

// maxAlerts bounds the alerts kept for sessions that have not read them.
const maxAlerts = 100

// Alert tells each AI session, once, what changed.
type Alert struct {
	seq       uint64
	Level     string `json:"level"`
	Type      string `json:"type"`
	Message   string `json:"message"`
	Setting   string `json:"setting,omitempty"`
	From      any    `json:"from,omitempty"`
	To        any    `json:"to,omitempty"`
	Timestamp string `json:"timestamp"`
}

// Controller holds the session's overrides. Safe for concurrent use.
type Controller struct {
	log *audit.Log
	now func() time.Time

	mu         sync.Mutex
	overrides  map[string]Override
	revoked    map[string]time.Time
	lastChange time.Time
	alerts     []Alert // newest last, at most maxAlerts
	alertSeq   uint64
	listeners  []func(map[string]any)
	refusal    error // while set, every AI change is refused with it
}

// New returns a controller that audits to log (nil: no audit).
func New(log *audit.Log, now func() time.Time) *Controller {
	if now == nil {
		now = time.Now
	}
	return &Controller{log: log, now: now, overrides: map[string]Override{}, revoked: map[string]time.Time{}}
}

// OnChange registers fn to receive the new override values after every
// change (to push them to the extension at once).
func (c *Controller) OnChange(fn func(values map[string]any)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listeners = append(c.listeners, fn)
}

// parse validates one value for a setting, accepting JSON booleans or the
// strings "true"/"false" for boolean settings.
func parse(name string, v any) (any, error) {
	s, ok := setting(name)
	if !ok && humanOnly(name) {
		return nil, problem.New(problem.Forbidden, "%s is the human's own setting, on the Gasoline options page; "+
			"the AI cannot change it. Ask the human if you need it changed.", name)
	}
	if !ok {
		return nil, problem.New(problem.InvalidParam, "Unknown capture setting: %s. Valid: %s.", name, strings.Join(Names(), ", "))
	}
	if s.Bool {
		switch v {
		case true, "true":
			return true, nil
		case false, "false":
			return false, nil
		}
	} else if str, ok := v.(string); ok && slices.Contains(s.Values, str) {
		return str, nil
	}
	return nil, problem.New(problem.InvalidParam, "Invalid value '%v' for %s. Valid: %s.", v, name, strings.Join(s.Values, ", "))
}

// Change is one accepted setting change.
type Change struct {
	Setting string `json:"setting"`
	From    any    `json:"from"`
	To      any    `json:"to"`
}

// Set applies the AI's changes as one change: all or none, rate-limited.
func (c *Controller) Set(agent string, changes map[string]any) ([]Change, error) {
	if len(changes) == 0 {
		return nil, problem.New(problem.InvalidParam, `settings is empty: pass {"setting": value, ...} or "reset"`)
	}
	parsed := make(map[string]any, len(changes))
	for _, name := range slices.Sorted(maps.Keys(changes)) {
		v, err := parse(name, changes[name])
		if err != nil {
			return nil, err
		}
		parsed[name] = v
	}
	c.mu.Lock()
	if c.refusal != nil {
		c.mu.Unlock()
		return nil, c.refusal
	}
	for _, name := range slices.Sorted(maps.Keys(parsed)) {
		if _, ok := c.revoked[name]; ok {
			c.mu.Unlock()
			return nil, problem.New(problem.RevokedByUser, "The human revoked AI control of %s. Ask them to allow it again "+
				"in the Gasoline dashboard (key a on the Overrides pane); until then, do not retry.", name)
		}
	}
	now := c.now()
	if err := c.rateLimit(now); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	var out []Change
	for _, name := range slices.Sorted(maps.Keys(parsed)) {
		s, _ := setting(name)
		from := s.Default
		if o, ok := c.overrides[name]; ok {
			from = o.Value
		}
		to := parsed[name]
		c.overrides[name] = Override{Value: to, Default: s.Default, ChangedAt: now, Agent: agent}
		out = append(out, Change{name, from, to})
		c.raise(Alert{Level: "info", Type: "capture_override", Setting: name, From: from, To: to,
			Message: fmt.Sprintf("AI changed %s: %v → %v", name, from, to), Timestamp: stamp(now)})
	}
	values, listeners := c.valuesLocked(), slices.Clone(c.listeners)
	c.mu.Unlock()
	for _, ch := range out {
		c.audit(audit.Event{Event: "capture_override", Setting: ch.Setting, From: ch.From, To: ch.To, Source: "ai", Agent: agent})
	}
	notify(listeners, values)
	return out, nil
}

func (c *Controller) rateLimit(now time.Time) error {
	if !c.lastChange.IsZero() && now.Sub(c.lastChange) < MinInterval {
		return problem.New(problem.RateLimited, "Rate limited: capture settings can be changed at most once per second.")
	}
	c.lastChange = now
	return nil
}

// Reset clears every AI override at the AI's request.
func (c *Controller) Reset(agent string) error {
	c.mu.Lock()
	if c.refusal != nil {
		c.mu.Unlock()
		return c.refusal
	}
	now := c.now()
	if err := c.rateLimit(now); err != nil {
		c.mu.Unlock()
		return err
	}
	had := len(c.overrides)
	clear(c.overrides)
	if had > 0 {
		c.raise(Alert{Level: "info", Type: "capture_reset", Message: "AI reset capture settings to the user's defaults", Timestamp: stamp(now)})
	}
	values, listeners := c.valuesLocked(), slices.Clone(c.listeners)
	c.mu.Unlock()
	c.audit(audit.Event{Event: "capture_reset", Reason: "explicit", Source: "ai", Agent: agent})
	notify(listeners, values)
	return nil
}

// Revoke is the human's veto: the setting returns to the user's value and
// the AI may not set it again until Allow. An empty name revokes every
// active override.
func (c *Controller) Revoke(name string) ([]string, error) {
	if name != "" {
		if _, ok := setting(name); !ok {
			return nil, problem.New(problem.InvalidParam, "Unknown capture setting: %s. Valid: %s.", name, strings.Join(Names(), ", "))
		}
	}
	c.mu.Lock()
	now := c.now()
	names := []string{name}
	if name == "" {
		names = slices.Sorted(maps.Keys(c.overrides))
	}
	var events []audit.Event
	for _, n := range names {
		if _, already := c.revoked[n]; already {
			continue
		}
		from, had := c.overrides[n]
		delete(c.overrides, n)
		c.revoked[n] = now
		s, _ := setting(n)
		ev := audit.Event{Event: "capture_revoked", Setting: n, To: s.Default, Source: "human", Agent: "human"}
		msg := fmt.Sprintf("The human revoked AI control of %s; it is back to %v. Do not set it again unless the human allows it.", n, s.Default)
		if had {
			ev.From = from.Value
		}
		events = append(events, ev)
		c.raise(Alert{Level: "warning", Type: "capture_revoked", Setting: n, From: ev.From, To: s.Default, Message: msg, Timestamp: stamp(now)})
	}
	values, listeners := c.valuesLocked(), slices.Clone(c.listeners)
	c.mu.Unlock()
	var done []string
	for _, e := range events {
		c.audit(e)
		done = append(done, e.Setting)
	}
	notify(listeners, values)
	return done, nil
}

// Allow lifts the human's veto on a setting.
func (c *Controller) Allow(name string) error {
	c.mu.Lock()
	_, ok := c.revoked[name]
	delete(c.revoked, name)
	now := c.now()
	if ok {
		c.raise(Alert{Level: "info", Type: "capture_allowed", Setting: name,
			Message: fmt.Sprintf("The human allowed AI control of %s again.", name), Timestamp: stamp(now)})
	}
	values, listeners := c.valuesLocked(), slices.Clone(c.listeners)
	c.mu.Unlock()
	if !ok {
		return problem.New(problem.NotFound, "%s is not revoked", name)
	}
	c.audit(audit.Event{Event: "capture_allowed", Setting: name, Source: "human", Agent: "human"})
	notify(listeners, values)
	return nil
}

// Restore brings back the human's revocations from a previous server (a
// restart or a takeover of the port). It neither alerts nor audits: the
// caller says what was restored, once, for the whole server.
func (c *Controller) Restore(revoked map[string]time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, at := range revoked {
		if _, ok := setting(name); ok {
			c.revoked[name] = at
		}
	}
}

// RefuseAI makes every change the AI asks for (Set, Reset) fail with err
// until RefuseAI(nil): the human's own decisions could not be read, and
// the AI must not act on a state the human has not seen.
func (c *Controller) RefuseAI(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refusal = err
}

// EndSession clears every override at shutdown and records it.
func (c *Controller) EndSession() {
	c.mu.Lock()
	had := len(c.overrides)
	clear(c.overrides)
	c.mu.Unlock()
	if had > 0 {
		c.audit(audit.Event{Event: "capture_reset", Reason: "session_end", Source: "server", Agent: ""})
	}
}

// Values are the active overrides as the extension applies them.
func (c *Controller) Values() map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.valuesLocked()
}

func (c *Controller) valuesLocked() map[string]any {
	out := make(map[string]any, len(c.overrides))
	for k, o := range c.overrides {
		out[k] = o.Value
	}
	return out
}

// State is the whole picture, for the dashboard and observe{what:"page"}.
type State struct {
	Overrides map[string]Override  `json:"overrides"`
	Revoked   map[string]time.Time `json:"revoked,omitempty"`
}

// State returns a copy of the overrides and the revoked settings.
func (c *Controller) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return State{Overrides: maps.Clone(c.overrides), Revoked: maps.Clone(c.revoked)}
}

// raise records an alert for every session to read once. The caller
// holds c.mu.
func (c *Controller) raise(a Alert) {
	c.alertSeq++
	a.seq = c.alertSeq
	c.alerts = append(c.alerts, a)
	if len(c.alerts) > maxAlerts {
		c.alerts = slices.Delete(c.alerts, 0, len(c.alerts)-maxAlerts)
	}
}

// AlertCursor is where a session that starts now begins reading alerts.
func (c *Controller) AlertCursor() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.alertSeq
}

// AlertsSince returns the alerts raised after cursor, oldest first, and the
// cursor to read from next time.
func (c *Controller) AlertsSince(cursor uint64) ([]Alert, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, _ := slices.BinarySearchFunc(c.alerts, cursor+1, func(a Alert, seq uint64) int { return cmp.Compare(a.seq, seq) })
	return slices.Clone(c.alerts[i:]), c.alertSeq
}

func (c *Controller) audit(e audit.Event) {
	if c.log != nil {
		_ = c.log.Write(e)
	}
}

func notify(listeners []func(map[string]any), values map[string]any) {
	for _, fn := range listeners {
		fn(values)
	}
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// View is every setting as the human's veto API shows it: its default, the
// AI's override if any, and whether the human revoked it.
type View struct {
	Settings []SettingView `json:"settings"`
}

// SettingView is one capture setting in a View.
type SettingView struct {
	Name      string     `json:"name"`
	Default   any        `json:"default"`
	Value     any        `json:"value,omitempty"`
	Agent     string     `json:"agent,omitempty"`
	ChangedAt *time.Time `json:"changed_at,omitempty"`
	Revoked   bool       `json:"revoked,omitempty"`
}

// Overridden reports whether the AI holds an override of the setting.
func (s SettingView) Overridden() bool { return s.ChangedAt != nil }

// View returns every setting's state, in the fixed order of Settings.
func (c *Controller) View() View {
	st := c.State()
	var out View
	for _, def := range Settings {
		v := SettingView{Name: def.Name, Default: def.Default}
		if o, ok := st.Overrides[def.Name]; ok {
			at := o.ChangedAt
			v.Value, v.Agent, v.ChangedAt = o.Value, o.Agent, &at
		}
		_, v.Revoked = st.Revoked[def.Name]
		out.Settings = append(out.Settings, v)
	}
	return out
}
