package streaming

// fifo is a map that holds at most cap keys, forgetting the oldest-inserted
// when full: every piece of per-key state the filters keep is one, so a page
// that makes up new URLs, selectors or messages forever costs a fixed amount.
// Keys are never deleted (a spent key is overwritten with its zero state), so
// the insertion ring and the map always hold the same keys.
type fifo[K comparable, V any] struct {
	m     map[K]V
	order []K // ring of keys in insertion order
	next  int // where the next new key goes, once order is full
}

func newFIFO[K comparable, V any](capacity int) *fifo[K, V] {
	return &fifo[K, V]{m: make(map[K]V, capacity), order: make([]K, 0, capacity)}
}

func (f *fifo[K, V]) get(k K) (V, bool) {
	v, ok := f.m[k]
	return v, ok
}

// put stores v under k; clone copies a new key before it is kept, so a key
// cut from a large string does not pin that string.
func (f *fifo[K, V]) put(k K, v V, clone func(K) K) {
	if _, ok := f.m[k]; ok {
		f.m[k] = v
		return
	}
	if clone != nil {
		k = clone(k)
	}
	if len(f.order) < cap(f.order) {
		f.order = append(f.order, k)
	} else {
		delete(f.m, f.order[f.next])
		f.order[f.next] = k
		f.next = (f.next + 1) % len(f.order)
	}
	f.m[k] = v
}

func (f *fifo[K, V]) len() int { return len(f.m) }
