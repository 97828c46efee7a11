package capture

// A dashboard row names a stored entry by what it shows: the time to the
// millisecond (the row's copy went through JSON) and the fields that tell
// entries of that time apart. The Find methods return the store's copy, so
// what reaches the AI is always the server's, never the row's.

// FindLog returns the console entry (or, with errors set, the error entry)
// the row names.
func (s *Store) FindLog(row LogEntry, errors bool) (LogEntry, bool) {
	get := s.Logs
	if errors {
		get = s.Errors
	}
	return first(get(Query{All: true, TabID: row.TabID}).Entries, func(e *LogEntry) bool {
		return sameMilli(e.TS, row.TS) && e.Message == row.Message && e.Level == row.Level
	})
}

// FindNetwork returns the request the row names.
func (s *Store) FindNetwork(row NetworkEntry) (NetworkEntry, bool) {
	return first(s.Network(Query{All: true, TabID: row.TabID}).Entries, func(e *NetworkEntry) bool {
		return sameMilli(e.TS, row.TS) && e.URL == row.URL && e.Method == row.Method
	})
}

// FindWSEvent returns the WebSocket event the row names.
func (s *Store) FindWSEvent(row WSEvent) (WSEvent, bool) {
	return first(s.WSEvents(Query{All: true, TabID: row.TabID}).Entries, func(e *WSEvent) bool {
		return sameMilli(e.TS, row.TS) && e.ID == row.ID && e.Event == row.Event && e.Direction == row.Direction
	})
}

// FindAction returns the user action the row names.
func (s *Store) FindAction(row Action) (Action, bool) {
	return first(s.Actions(Query{All: true, TabID: row.TabID}).Entries, func(e *Action) bool {
		return sameMilli(e.TS, row.TS) && e.Type == row.Type && e.Selector == row.Selector
	})
}

func first[T any](entries []T, match func(*T) bool) (T, bool) {
	for i := range entries {
		if match(&entries[i]) {
			return entries[i], true
		}
	}
	var zero T
	return zero, false
}

func sameMilli(a, b Time) bool { return a.UnixMilli() == b.UnixMilli() }
