package capture

// ring is a fixed-capacity buffer that overwrites its oldest item. Every item
// carries a sequence number that only grows, which is what read cursors are.
// It is not safe for concurrent use; Store serialises access.
type ring[T any] struct {
	items []T
	seqs  []uint64
	next  int // index the next push writes
	count int
}

func newRing[T any](capacity int) *ring[T] {
	return &ring[T]{items: make([]T, capacity), seqs: make([]uint64, capacity)}
}

func (r *ring[T]) push(seq uint64, v T) {
	r.items[r.next] = v
	r.seqs[r.next] = seq
	r.next = (r.next + 1) % len(r.items)
	if r.count < len(r.items) {
		r.count++
	}
}

// newest calls fn from the newest item to the oldest until fn returns false.
func (r *ring[T]) newest(fn func(seq uint64, v *T) bool) {
	for i := 0; i < r.count; i++ {
		idx := (r.next - 1 - i + len(r.items)) % len(r.items)
		if !fn(r.seqs[idx], &r.items[idx]) {
			return
		}
	}
}

func (r *ring[T]) clear() {
	clear(r.items)
	r.next, r.count = 0, 0
}
