// Package storage is what observe{what:"storage"} answers about a page's
// origin: its localStorage and sessionStorage, cookies (HttpOnly ones too),
// IndexedDB and Cache Storage names. Every value passes the one secret rule
// set (features/redact), a value is cut at ValueMax bytes with its length
// kept, and the whole answer fits AnswerMax bytes, what was left out
// counted: a page's storage is the page's to fill, never the AI's context.
package storage

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/gasoline-dev/gasoline/features/redact"
)

// The limits of the architecture contract.
const (
	// ValueMax bytes of a value are shown; Size keeps its whole length.
	ValueMax = 2 << 10
	// AnswerMax bytes is the most an answer holds.
	AnswerMax = 64 << 10
	// RecordsMax records of an IndexedDB store are shown, with include_values.
	RecordsMax = 20
	// DatabasesMax databases and StoresMax stores of each are described.
	DatabasesMax = 20
	StoresMax    = 50
	// CachesMax Cache Storage names are listed.
	CachesMax = 50
)

// Entry is one localStorage or sessionStorage item.
type Entry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Size is the value's whole length in characters, as the browser counts
	// its storage quota; Cut says Value is only its start.
	Size int  `json:"size"`
	Cut  bool `json:"cut,omitempty"`
}

// Cookie is one cookie the page's URL is sent, as the browser keeps it.
type Cookie struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Domain   string `json:"domain"`
	Path     string `json:"path"`
	Secure   bool   `json:"secure,omitempty"`
	HTTPOnly bool   `json:"httpOnly,omitempty"`
	SameSite string `json:"sameSite,omitempty"`
	// Expires is RFC 3339; none: a session cookie.
	Expires string `json:"expires,omitempty"`
	Size    int    `json:"size"` // name and value, in characters
	Cut     bool   `json:"cut,omitempty"`
}

// Section is a list the answer may hold only the start of: Count items
// there are, More of them left out.
type Section[T any] struct {
	Count   int `json:"count"`
	Entries []T `json:"entries,omitempty"`
	More    int `json:"more,omitempty"`
}

// Record is an IndexedDB record: its key and value as JSON (a string when
// cut or not JSON).
type Record struct {
	Key   any  `json:"key"`
	Value any  `json:"value"`
	Cut   bool `json:"cut,omitempty"`
}

// Store is an IndexedDB object store.
type Store struct {
	Name          string   `json:"name"`
	KeyPath       string   `json:"keyPath,omitempty"`
	AutoIncrement bool     `json:"autoIncrement,omitempty"`
	Count         int      `json:"count"`
	Records       []Record `json:"records,omitempty"`
	// More counts the records not shown (include_values only).
	More int `json:"more,omitempty"`
}

// Database is an IndexedDB database.
type Database struct {
	Name    string  `json:"name"`
	Version int     `json:"version"`
	Stores  []Store `json:"stores,omitempty"`
	More    int     `json:"more_stores,omitempty"`
	// Error says why the database could not be read (gone, held by an upgrade).
	Error string `json:"error,omitempty"`
}

// IndexedDB is the origin's databases.
type IndexedDB struct {
	Count     int        `json:"count"`
	Databases []Database `json:"databases,omitempty"`
	More      int        `json:"more,omitempty"`
}

// Result is what the extension reads of a page's origin and what the AI
// is given of it, once Enforce has run.
type Result struct {
	Origin         string           `json:"origin"`
	URL            string           `json:"url,omitempty"`
	LocalStorage   *Section[Entry]  `json:"localStorage,omitempty"`
	SessionStorage *Section[Entry]  `json:"sessionStorage,omitempty"`
	Cookies        *Section[Cookie] `json:"cookies,omitempty"`
	IndexedDB      *IndexedDB       `json:"indexedDB,omitempty"`
	CacheStorage   []string         `json:"cacheStorage,omitempty"`
	// Unreadable names the parts the browser would not give, and why.
	Unreadable map[string]string `json:"unreadable,omitempty"`
}

// Enforce applies the secret rules and the limits to what the extension
// sent, whatever it sent: values cut, redacted, and the answer within
// AnswerMax, each list keeping its start and counting the rest.
func (r *Result) Enforce() {
	r.URL = redact.URL(r.URL)
	for _, s := range []*Section[Entry]{r.LocalStorage, r.SessionStorage} {
		if s == nil {
			continue
		}
		s.Count = max(s.Count, len(s.Entries))
		for i := range s.Entries {
			e := &s.Entries[i]
			e.Size = max(e.Size, utf8.RuneCountInString(e.Value)) // the value's, not its mark's
			v, cut := shown(redact.Named(e.Key, e.Value))
			e.Value, e.Cut = v, e.Cut || cut
		}
	}
	if c := r.Cookies; c != nil {
		c.Count = max(c.Count, len(c.Entries))
		for i := range c.Entries {
			k := &c.Entries[i]
			k.Size = max(k.Size, utf8.RuneCountInString(k.Name)+utf8.RuneCountInString(k.Value))
			v, cut := shown(redact.Named(k.Name, k.Value))
			k.Value, k.Cut = v, k.Cut || cut
		}
	}
	if db := r.IndexedDB; db != nil {
		db.Count = max(db.Count, len(db.Databases))
		if len(db.Databases) > DatabasesMax {
			db.More += len(db.Databases) - DatabasesMax
			db.Databases = db.Databases[:DatabasesMax]
		}
		for i := range db.Databases {
			d := &db.Databases[i]
			if len(d.Stores) > StoresMax {
				d.More += len(d.Stores) - StoresMax
				d.Stores = d.Stores[:StoresMax]
			}
			for j := range d.Stores {
				st := &d.Stores[j]
				if len(st.Records) > RecordsMax {
					st.More += len(st.Records) - RecordsMax
					st.Records = st.Records[:RecordsMax]
				}
				for k := range st.Records {
					st.Records[k] = record(st.Name, st.Records[k])
				}
			}
		}
	}
	if len(r.CacheStorage) > CachesMax {
		r.CacheStorage = r.CacheStorage[:CachesMax]
	}
	r.fit(AnswerMax)
}

// shown is a value as the answer shows it: its first ValueMax bytes,
// whole characters, and whether it was cut. It is cut after redaction so
// that a secret across the cut is found whole: its public prefix shows at
// most.
func shown(v string) (string, bool) {
	if len(v) <= ValueMax {
		return v, false
	}
	n := ValueMax
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n], true
}

// record redacts and cuts one IndexedDB record, whose key and value the
// extension sent as JSON text: a whole value in a store with a secret name,
// else the values of secret keys in it. What still reads as JSON is shown
// as JSON, the rest as a string.
func record(store string, rec Record) Record {
	out := Record{Cut: rec.Cut}
	for i, x := range []any{rec.Key, rec.Value} {
		s, ok := x.(string)
		if !ok {
			b, _ := json.Marshal(x)
			s = string(b)
		}
		if i == 1 && redact.IsSecretName(store) {
			s = redact.Named(store, s)
		} else {
			s = redact.Body(s, "application/json")
		}
		s, cut := shown(s)
		whole := !cut && (i == 0 || !rec.Cut)
		var v any = s
		if whole && json.Valid([]byte(s)) {
			v = json.RawMessage(s)
		}
		if i == 0 {
			out.Key = v
		} else {
			out.Value = v
		}
		out.Cut = out.Cut || cut
	}
	return out
}
