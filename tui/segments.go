package tui

// headerSegments are the fields other features add to the header. Each
// feature writes one function of its own, in its own file, returning a
// segment (the line it goes on, its forms longest first), and adds one
// call here; header.go places it and gives up its room first on a narrow
// terminal, so the header's own facts stay.
//
//	if s, ok := m.pointedSegment(); ok {
//		out = append(out, s)
//	}
func (m *Model) headerSegments() []segment {
	var out []segment
	if p := pointedPart(m.point.sent); p != nil {
		out = append(out, segment{line: 3, forms: p, late: true})
	}
	return out
}
