package sourcemap

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	sm "github.com/go-sourcemap/sourcemap"
	"golang.org/x/sync/singleflight"
)

// Limits.
const (
	MaxMap     = 10 << 20 // bytes of one map
	MaxScript  = 10 << 20 // bytes of one script read for its map reference
	CacheBytes = 32 << 20 // estimated memory of the parsed maps kept
	// MaxAllowed bounds the human's allow list.
	MaxAllowed = 50
	// MaxLoading bounds the scripts and maps being read and parsed at once,
	// and so the memory they take on the way (each at most 10 MB).
	MaxLoading = 2
	// MaxPrefetch bounds the reads started by arriving errors at once.
	MaxPrefetch = 4
	// MaxFailures bounds the failures health lists (one per script).
	MaxFailures = 10
	// mappingCost is the parsed size of one mapping (six int32s).
	mappingCost = 24
	// lineCost is the index of one line of an original source's text.
	lineCost = 4
)

// Config tunes a Resolver; zero fields take the defaults.
type Config struct {
	Client     *http.Client
	CacheBytes int64
	// Wait bounds how long a Resolve waits for maps still being fetched;
	// a fetch that takes longer goes on and serves the next Resolve.
	Wait time.Duration
	// Fresh is how long a script is trusted unchanged before it is read
	// again (a rebuilt bundle at the same URL has a new map).
	Fresh time.Duration
	Now   func() time.Time
}

// Failure says once why a script's frames stay as the browser gave them.
type Failure struct {
	Script string `json:"script"`
	Reason string `json:"reason"`
}

// Stats is what health shows.
type Stats struct {
	Maps     int       `json:"maps"`
	Bytes    int64     `json:"bytes"`
	Evicted  int64     `json:"evicted,omitempty"`
	Failures []Failure `json:"failed,omitempty"`
}

// entry is one script as last read.
type entry struct {
	script  string
	sum     [32]byte
	m       *srcMap // nil: the script names no map
	cost    int64
	checked time.Time
	elem    *list.Element
}

// Resolver maps frames to original sources. Safe for concurrent use.
type Resolver struct {
	cfg         Config
	flight      singleflight.Group
	prefetching chan struct{}
	loading     chan struct{}

	mu       sync.Mutex
	allowed  map[string]bool // origins the human allowed besides development ones
	entries  map[string]*entry
	lru      *list.List // front: most recently used
	used     int64
	evicted  int64
	failures []Failure // newest last
}

// New returns a Resolver.
func New(cfg Config) *Resolver {
	if cfg.Client == nil {
		cfg.Client = newClient(10 * time.Second)
	}
	if cfg.CacheBytes == 0 {
		cfg.CacheBytes = CacheBytes
	}
	if cfg.Wait == 0 {
		cfg.Wait = 2 * time.Second
	}
	if cfg.Fresh == 0 {
		cfg.Fresh = time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Resolver{cfg: cfg, allowed: map[string]bool{}, entries: map[string]*entry{}, lru: list.New(),
		prefetching: make(chan struct{}, MaxPrefetch), loading: make(chan struct{}, MaxLoading)}
}

// SetAllowed replaces the origins the human allowed maps to be read from
// besides the development ones, and says whether that changed them.
// Entries that are not origins are ignored.
func (r *Resolver) SetAllowed(origins []string) bool {
	m := map[string]bool{}
	for _, o := range origins {
		if n := NormalizeOrigin(o); n != "" && len(m) < MaxAllowed {
			m[n] = true
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if maps.Equal(m, r.allowed) {
		return false
	}
	r.allowed = m
	return true
}

// Allowed lists the human's allowed origins, sorted.
func (r *Resolver) Allowed() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.allowed))
	for o := range r.allowed {
		out = append(out, o)
	}
	slices.Sort(out)
	return out
}

// Stats reports the cache and the failures.
func (r *Resolver) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.entries {
		if e.m != nil {
			n++
		}
	}
	return Stats{Maps: n, Bytes: r.used, Evicted: r.evicted, Failures: slices.Clone(r.failures)}
}

func (r *Resolver) permitted(u *url.URL) bool {
	if u == nil {
		return false
	}
	if Development(u) {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.allowed[Origin(u)]
}

func (r *Resolver) fail(script, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = slices.DeleteFunc(r.failures, func(f Failure) bool { return f.Script == script })
	r.failures = append(r.failures, Failure{script, reason})
	if len(r.failures) > MaxFailures {
		r.failures = r.failures[len(r.failures)-MaxFailures:]
	}
}

func (r *Resolver) succeed(script string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = slices.DeleteFunc(r.failures, func(f Failure) bool { return f.Script == script })
}

// cached returns a script's map if it was read recently enough.
func (r *Resolver) cached(script string) (*srcMap, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entries[script]
	if e == nil || r.cfg.Now().Sub(e.checked) >= r.cfg.Fresh {
		return nil, false
	}
	r.lru.MoveToFront(e.elem)
	return e.m, true
}

// maps returns the map of every script named, waiting at most cfg.Wait
// (and ctx) for those still being read; a script without one is absent.
// A script is read only when both its origin and the origin of the page
// that named it are allowed: a page elsewhere cannot steer reads at the
// developer's machine.
func (r *Resolver) maps(ctx context.Context, scripts []string, pages map[string]string) map[string]*srcMap {
	out := map[string]*srcMap{}
	pending := map[string]<-chan singleflight.Result{}
	for _, s := range scripts {
		if m, ok := r.cached(s); ok {
			if m != nil {
				out[s] = m
			}
			continue
		}
		if ch := r.start(s, pages[s]); ch != nil {
			pending[s] = ch
		}
	}
	if len(pending) == 0 {
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Wait)
	defer cancel()
	for s, ch := range pending {
		select {
		case res := <-ch:
			if m, _ := res.Val.(*srcMap); m != nil {
				out[s] = m
			}
		case <-ctx.Done():
		}
	}
	return out
}

// start begins reading a script's map unless a read is under way; nil
// when it may not be read.
func (r *Resolver) start(script, page string) <-chan singleflight.Result {
	u, err := url.Parse(script)
	if err != nil || Origin(u) == "" {
		return nil
	}
	p, _ := url.Parse(page)
	for _, o := range []*url.URL{u, p} {
		if !r.permitted(o) {
			r.fail(script, fmt.Sprintf("origin %s is not allowed: the human can allow it in the extension's options (source maps); not fetched", Origin(o)))
			return nil
		}
	}
	return r.flight.DoChan(script, func() (any, error) {
		// The read outlives its caller so that a slow map serves the next one.
		c, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		return r.load(c, u)
	})
}

// Prefetch starts reading the maps of a stack's scripts as the error
// arrives, so that the AI's first read finds them ready. It does not wait,
// and does nothing while MaxPrefetch reads are under way.
func (r *Resolver) Prefetch(st Stack) {
	urls, pages := scripts([]Stack{st})
	for _, s := range urls {
		if _, ok := r.cached(s); ok {
			continue
		}
		select {
		case r.prefetching <- struct{}{}:
		default:
			return
		}
		ch := r.start(s, pages[s])
		go func() {
			if ch != nil {
				<-ch
			}
			<-r.prefetching
		}()
	}
}

// load reads a script, finds its map, reads and parses it, and keeps it.
func (r *Resolver) load(ctx context.Context, script *url.URL) (*srcMap, error) {
	key := script.String()
	select {
	case r.loading <- struct{}{}:
		defer func() { <-r.loading }()
	case <-ctx.Done():
		r.fail(key, "timed out waiting for other maps being read; read again on the next observe")
		return nil, ctx.Err()
	}
	body, h, err := get(ctx, r.cfg.Client, key, MaxScript)
	if err != nil {
		return nil, r.failed(key, "script: "+err.Error())
	}
	sum := sha256.Sum256(body)
	r.mu.Lock()
	if e := r.entries[key]; e != nil && e.sum == sum {
		e.checked = r.cfg.Now()
		r.lru.MoveToFront(e.elem)
		r.mu.Unlock()
		return e.m, nil
	}
	r.mu.Unlock()
	m, raw, err := r.readMap(ctx, script, body, h)
	if err != nil && !errors.Is(err, errNoMap) {
		return nil, r.failed(key, err.Error())
	}
	r.succeed(key)
	cost := int64(256)
	if m != nil {
		cost += int64(len(raw)) + mappingCost*int64(bytes.Count(raw, []byte{','})+bytes.Count(raw, []byte{';'})) +
			lineCost*int64(bytes.Count(raw, []byte(`\n`)))
	}
	r.keep(&entry{script: key, sum: sum, m: m, cost: cost, checked: r.cfg.Now()})
	return m, nil
}

func (r *Resolver) readMap(ctx context.Context, script *url.URL, body []byte, h http.Header) (*srcMap, []byte, error) {
	ref := mapReference(body, h)
	if ref == "" {
		return nil, nil, errNoMap
	}
	mu, err := mapURL(script, ref)
	if err != nil {
		return nil, nil, err
	}
	var raw []byte
	base := mu
	if base[:min(len(base), 5)] == "data:" {
		raw, err = inlineMap(mu, MaxMap)
		base = script.String()
	} else {
		raw, _, err = get(ctx, r.cfg.Client, mu, MaxMap)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("map: %v", err)
	}
	m, err := parse(base, raw)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s does not parse: %v", clip(base), err)
	}
	return &srcMap{Consumer: m}, raw, nil
}

// failed says why once and remembers the failure until the script is
// read again, so that every read does not fetch it anew.
func (r *Resolver) failed(script, reason string) error {
	r.fail(script, reason)
	r.keep(&entry{script: script, cost: 256, checked: r.cfg.Now()})
	return errors.New(reason)
}

// parse is sm.Parse, whose panics on a malformed map become errors.
func parse(base string, raw []byte) (m *sm.Consumer, err error) {
	defer func() {
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("malformed: %v", p)
		}
	}()
	return sm.Parse(base, raw)
}

// keep stores an entry, evicting the least recently used past the budget;
// one larger than the whole budget serves this read only.
func (r *Resolver) keep(e *entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.entries[e.script]; old != nil {
		r.lru.Remove(old.elem)
		r.used -= old.cost
		delete(r.entries, e.script)
	}
	if e.cost > r.cfg.CacheBytes {
		r.evicted++
		return
	}
	for r.used+e.cost > r.cfg.CacheBytes {
		last := r.lru.Back()
		old := last.Value.(*entry)
		r.lru.Remove(last)
		r.used -= old.cost
		delete(r.entries, old.script)
		r.evicted++
	}
	e.elem = r.lru.PushFront(e)
	r.entries[e.script] = e
	r.used += e.cost
}
