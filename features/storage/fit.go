package storage

import "encoding/json"

// fitMargin is room kept for the counts of what was left out, written once
// the lists are cut.
const fitMargin = 512

// list is one of the answer's lists as fit shares the room among them.
type list struct {
	n     int             // items
	size  func(i int) int // bytes of item i in the answer, with its comma
	ready func() bool     // nil, or whether the list may grow now (a store's records: once its database is in)
	keep  int             // items kept
	done  bool
}

// fit keeps as much of each list as the answer's most bytes allow, taking
// one item of each list in turn, so that 10,000 keys in localStorage leave
// room for the cookies; a list stops at its first item that does not fit.
// What is left out is counted in its list's More: of Count, those not shown,
// whether the extension or the cap left them out.
func (r *Result) fit(most int) {
	var lists []*list
	entries := func(s *Section[Entry]) *list {
		l := &list{}
		if s != nil {
			l.n = len(s.Entries)
			l.size = func(i int) int { return jsonSize(s.Entries[i]) + 1 }
		}
		return l
	}
	local, session := entries(r.LocalStorage), entries(r.SessionStorage)
	cookies := &list{}
	if c := r.Cookies; c != nil {
		cookies.n = len(c.Entries)
		cookies.size = func(i int) int { return jsonSize(c.Entries[i]) + 1 }
	}
	lists = append(lists, local, session, cookies)
	dbs := &list{}
	var records [][]*list // per database, per store
	if db := r.IndexedDB; db != nil {
		dbs.n = len(db.Databases)
		dbs.size = func(i int) int {
			d := db.Databases[i]
			stores := make([]Store, len(d.Stores))
			for j, st := range d.Stores {
				stores[j] = st
				stores[j].Records = nil
			}
			d.Stores = stores
			return jsonSize(d) + 1
		}
		lists = append(lists, dbs)
		for i := range db.Databases {
			d := &db.Databases[i]
			per := make([]*list, len(d.Stores))
			for j := range d.Stores {
				st := &d.Stores[j]
				per[j] = &list{
					n:     len(st.Records),
					size:  func(k int) int { return jsonSize(st.Records[k]) + 1 },
					ready: func() bool { return dbs.keep > i },
				}
				lists = append(lists, per[j])
			}
			records = append(records, per)
		}
	}
	// What is there whatever the lists hold.
	bare := *r
	bare.LocalStorage, bare.SessionStorage, bare.Cookies = emptied(r.LocalStorage), emptied(r.SessionStorage), emptied(r.Cookies)
	if r.IndexedDB != nil {
		bare.IndexedDB = &IndexedDB{Count: r.IndexedDB.Count, More: r.IndexedDB.Count}
	}
	room := most - jsonSize(bare) - fitMargin
	for grew := true; grew; {
		grew = false
		for _, l := range lists {
			if l.done || l.ready != nil && !l.ready() {
				continue
			}
			if l.keep >= l.n {
				l.done = true
				continue
			}
			s := l.size(l.keep)
			if s > room {
				l.done = true
				continue
			}
			room -= s
			l.keep++
			grew = true
		}
	}
	cut := func(s *Section[Entry], l *list) {
		if s != nil {
			s.Entries = s.Entries[:l.keep]
			s.More = s.Count - l.keep
		}
	}
	cut(r.LocalStorage, local)
	cut(r.SessionStorage, session)
	if c := r.Cookies; c != nil {
		c.Entries = c.Entries[:cookies.keep]
		c.More = c.Count - cookies.keep
	}
	if db := r.IndexedDB; db != nil {
		for i := range db.Databases[:dbs.keep] {
			for j := range db.Databases[i].Stores {
				st := &db.Databases[i].Stores[j]
				l := records[i][j]
				st.More += l.n - l.keep
				st.Records = st.Records[:l.keep]
			}
		}
		db.Databases = db.Databases[:dbs.keep]
		db.More = db.Count - dbs.keep
	}
}

// emptied is s with no entries, all of them counted as left out.
func emptied[T any](s *Section[T]) *Section[T] {
	if s == nil {
		return nil
	}
	return &Section[T]{Count: s.Count, More: s.Count}
}

func jsonSize(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}
