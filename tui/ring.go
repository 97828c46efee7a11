package tui

// ring keeps the newest cap values pushed into it.
type ring[T any] struct {
	buf   []T
	start int // index of the oldest
	n     int
}

func newRing[T any](capacity int) ring[T] { return ring[T]{buf: make([]T, capacity)} }

// push appends v, returning the value it evicted, if any.
func (r *ring[T]) push(v T) (evicted T, full bool) {
	if len(r.buf) == 0 {
		return v, true
	}
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = v
		r.n++
		return evicted, false
	}
	evicted = r.buf[r.start]
	r.buf[r.start] = v
	r.start = (r.start + 1) % len(r.buf)
	return evicted, true
}

func (r *ring[T]) len() int { return r.n }

// at returns the i-th oldest value.
func (r *ring[T]) at(i int) T { return r.buf[(r.start+i)%len(r.buf)] }

// each calls fn with every value, oldest first.
func (r *ring[T]) each(fn func(T)) {
	for i := range r.n {
		fn(r.at(i))
	}
}

func (r *ring[T]) reset() {
	clear(r.buf)
	r.start, r.n = 0, 0
}
