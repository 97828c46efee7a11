package history

import (
	"bytes"
	"testing"
)

// FuzzDecode: whatever a segment holds, decode never panics, never hands
// out a record whose checksum fails, and says where intact data ends.
func FuzzDecode(f *testing.F) {
	var good []byte
	for i := range 5 {
		good = appendRecord(good, uint64(100+i), []byte(`{"msg":"m"}`))
	}
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add(append(bytes.Clone(good), 0xff, 0xff, 0xff, 0x7f))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		limit := int64(len(data))
		var n int
		var out []byte
		sc, err := decode(bytes.NewReader(data), limit, 0, func(seq uint64, payload []byte) {
			n++
			out = appendRecord(out, seq, payload)
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != sc.records || sc.end > limit || sc.end < 0 {
			t.Fatalf("scan %+v with %d records of %d bytes", sc, n, len(data))
		}
		// Intact records re-encode to themselves: with nothing skipped,
		// what was read is exactly the prefix up to end.
		if sc.skipped == 0 && !bytes.Equal(out, data[:sc.end]) {
			t.Fatalf("re-encoded records differ from the %d bytes read", sc.end)
		}
		// Skipping k hands out the rest.
		if sc.records > 1 {
			var m int
			decode(bytes.NewReader(data), limit, sc.records/2, func(uint64, []byte) { m++ })
			if m != sc.records-sc.records/2 {
				t.Fatalf("skipping %d of %d handed out %d", sc.records/2, sc.records, m)
			}
		}
		// A smaller limit never reads past it.
		if limit > 0 {
			sc2, _ := decode(bytes.NewReader(data), limit/2, 0, func(uint64, []byte) {})
			if sc2.end > limit/2 {
				t.Fatalf("read to %d past the limit %d", sc2.end, limit/2)
			}
		}
	})
}
