package history

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

// A record is a 16-byte header — payload length, CRC-32C of seq and
// payload, seq (little-endian) — then the payload. The checksum is what
// lets a reader tell a record a SIGKILL tore in half from a whole one.
const headerSize = 16

// MaxRecord bounds one record's payload. The largest capture entry encodes
// to well under this; a length field above it can only be damage.
const MaxRecord = 1 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func checksum(seq uint64, payload []byte) uint32 {
	var s [8]byte
	binary.LittleEndian.PutUint64(s[:], seq)
	return crc32.Update(crc32.Update(0, castagnoli, s[:]), castagnoli, payload)
}

// appendRecord appends one encoded record to b.
func appendRecord(b []byte, seq uint64, payload []byte) []byte {
	var h [headerSize]byte
	binary.LittleEndian.PutUint32(h[0:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:], checksum(seq, payload))
	binary.LittleEndian.PutUint64(h[8:], seq)
	return append(append(b, h[:]...), payload...)
}

// scan is what decode found in a segment.
type scan struct {
	end     int64 // offset just past the last intact record: where to append
	records int   // intact records
	skipped int   // records whose checksum failed, skipped
}

// decode calls fn with every intact record of r but the first skip, in
// order, at most limit bytes in. A record whose checksum fails is skipped and reading goes on; a
// length beyond MaxRecord or limit, or a record cut short (the torn tail a
// SIGKILL leaves), ends the segment there. fn's payload is only valid
// during the call.
func decode(r io.Reader, limit int64, skip int, fn func(seq uint64, payload []byte)) (scan, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, limit), 64<<10)
	var (
		sc   scan
		off  int64
		h    [headerSize]byte
		body []byte
	)
	for {
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return sc, eof(err)
		}
		n := int64(binary.LittleEndian.Uint32(h[0:]))
		if n == 0 || n > MaxRecord || off+headerSize+n > limit {
			return sc, nil
		}
		if int64(cap(body)) < n {
			body = make([]byte, n)
		}
		body = body[:n]
		if _, err := io.ReadFull(br, body); err != nil {
			return sc, eof(err)
		}
		off += headerSize + n
		seq := binary.LittleEndian.Uint64(h[8:])
		if checksum(seq, body) != binary.LittleEndian.Uint32(h[4:]) {
			sc.skipped++
			continue
		}
		sc.records++
		sc.end = off
		if sc.records > skip {
			fn(seq, body)
		}
	}
}

// eof turns the end of the input, clean or mid-record, into no error.
func eof(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}
