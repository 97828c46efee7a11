package storage

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"

func answer(t *testing.T, r *Result) string {
	t.Helper()
	r.Enforce()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > AnswerMax {
		t.Fatalf("answer is %d bytes, more than %d", len(b), AnswerMax)
	}
	return string(b)
}

// Secret-named keys and cookies lose their values, a known format keeping
// its public prefix; other values keep what is not a secret in them.
func TestRedaction(t *testing.T) {
	r := &Result{
		Origin: "http://app.test",
		URL:    "http://app.test/?token=abc123",
		LocalStorage: &Section[Entry]{Count: 3, Entries: []Entry{
			{Key: "theme", Value: "dark", Size: 4},
			{Key: "jwt", Value: jwt, Size: len(jwt)},
			{Key: "cart", Value: `{"items":[{"sku":"A1","qty":2}],"auth_token":"tok-9f8e7d"}`},
		}},
		SessionStorage: &Section[Entry]{Count: 1, Entries: []Entry{{Key: "step", Value: "2", Size: 1}}},
		Cookies: &Section[Cookie]{Count: 2, Entries: []Cookie{
			{Name: "sid", Value: "server-secret", Domain: "app.test", Path: "/", HTTPOnly: true, SameSite: "Lax"},
			{Name: "consent_shown", Value: "yes", Domain: "app.test", Path: "/"},
		}},
		IndexedDB: &IndexedDB{Count: 2, Databases: []Database{
			{Name: "shop", Version: 1, Stores: []Store{{Name: "orders", KeyPath: "id", Count: 1, Records: []Record{
				{Key: "1", Value: `{"id":1,"password":"hunter2","total":9.5}`}}}}},
			{Name: "auth", Version: 2, Stores: []Store{{Name: "credentials", Count: 1, Records: []Record{{Key: `"me"`, Value: `{"user":"bob"}`}}}}},
		}},
	}
	got := answer(t, r)
	for _, want := range []string{
		`{"key":"theme","value":"dark","size":4}`,
		`{"key":"jwt","value":"eyJhbG…[redacted]","size":` + strconv.Itoa(len(jwt)) + `}`,
		`"auth_token\":\"[redacted]\"`,
		`"sku\":\"A1\"`,
		`"url":"http://app.test/?token=[redacted]"`,
		`{"name":"sid","value":"[redacted]","domain":"app.test","path":"/","httpOnly":true,"sameSite":"Lax","size":16}`,
		`{"name":"consent_shown","value":"yes"`,
		`"records":[{"key":1,"value":{"id":1,"password":"[redacted]","total":9.5}}]`,
		`"records":[{"key":"me","value":"[redacted]"}]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	for _, secret := range []string{"server-secret", "tok-9f8e7d", "hunter2", "SflKxw", "bob", "abc123"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q leaked: %s", secret, got)
		}
	}
	if strings.Contains(got, "null") || strings.Contains(got, `"more"`) {
		t.Errorf("nulls or nothing left out counted: %s", got)
	}
}

// A value over ValueMax is cut at a character's start and says so, its
// size the whole; a secret across the cut is redacted whole, only its
// public prefix shown.
func TestValueCut(t *testing.T) {
	long := strings.Repeat("é", 3000) // 6,000 bytes
	ghp := "ghp_R8f2Kq9ZtL4mWx7bN1cVy6HsJ3dPa0Ge5uTo"
	across := strings.Repeat("x", ValueMax-10) + " " + ghp + " tail"
	r := &Result{LocalStorage: &Section[Entry]{Count: 2, Entries: []Entry{
		{Key: "blob", Value: long, Size: 3000},
		{Key: "notes", Value: across, Size: len(across)},
	}}}
	answer(t, r)
	e := r.LocalStorage.Entries[0]
	if !e.Cut || e.Size != 3000 || len(e.Value) > ValueMax || len(e.Value) < ValueMax-1 || !strings.HasPrefix(long, e.Value) {
		t.Errorf("cut: %v %d %d", e.Cut, e.Size, len(e.Value))
	}
	n := r.LocalStorage.Entries[1]
	if !n.Cut || strings.Contains(n.Value, "R8f2") || !strings.HasSuffix(n.Value, " ghp_[reda") {
		t.Errorf("a secret across the cut: %q", n.Value[len(n.Value)-30:])
	}
}

// 10,000 keys of 2 KB each: the answer keeps their start within
// AnswerMax, counts the rest, and leaves room for the cookies and
// IndexedDB's records.
func TestCapCounted(t *testing.T) {
	big := strings.Repeat("v", 5000)
	r := &Result{
		LocalStorage: &Section[Entry]{Count: 10000},
		Cookies:      &Section[Cookie]{Count: 1, Entries: []Cookie{{Name: "theme", Value: "dark", Domain: "a", Path: "/"}}},
		IndexedDB: &IndexedDB{Count: 1, Databases: []Database{{Name: "db", Version: 1, Stores: []Store{{Name: "s", Count: 100,
			Records: make([]Record, 30)}}}}},
	}
	for i := range 10000 {
		r.LocalStorage.Entries = append(r.LocalStorage.Entries, Entry{Key: "k" + strconv.Itoa(i), Value: big, Size: 5000})
	}
	for i := range r.IndexedDB.Databases[0].Stores[0].Records {
		r.IndexedDB.Databases[0].Stores[0].Records[i] = Record{Key: strconv.Itoa(i), Value: `"` + big + `"`}
	}
	got := answer(t, r)
	l := r.LocalStorage
	if len(l.Entries) == 0 || len(l.Entries) > 40 || l.More != 10000-len(l.Entries) || !l.Entries[0].Cut {
		t.Errorf("localStorage: %d shown, %d more", len(l.Entries), l.More)
	}
	if len(r.Cookies.Entries) != 1 {
		t.Errorf("the cookie was crowded out: %s", got[:200])
	}
	st := r.IndexedDB.Databases[0].Stores[0]
	if len(st.Records) == 0 || len(st.Records) > RecordsMax || st.More != 30-len(st.Records) {
		t.Errorf("records: %d shown, %d more", len(st.Records), st.More)
	}
	if len(got) < AnswerMax*3/4 {
		t.Errorf("the answer used %d of %d bytes", len(got), AnswerMax)
	}
}

// What the extension did not send counts too: Count over the entries, and
// databases and stores past their caps.
func TestCountsOfWhatWasNotSent(t *testing.T) {
	r := &Result{SessionStorage: &Section[Entry]{Count: 500, Entries: []Entry{{Key: "a", Value: "b", Size: 1}}},
		IndexedDB: &IndexedDB{Count: 30}}
	for i := range 30 {
		d := Database{Name: "d" + strconv.Itoa(i), Version: 1}
		for j := range 60 {
			d.Stores = append(d.Stores, Store{Name: "s" + strconv.Itoa(j), Count: 1})
		}
		r.IndexedDB.Databases = append(r.IndexedDB.Databases, d)
	}
	answer(t, r)
	if r.SessionStorage.More != 499 {
		t.Errorf("sessionStorage more: %d", r.SessionStorage.More)
	}
	db := r.IndexedDB
	if len(db.Databases) > DatabasesMax || db.More != 30-len(db.Databases) || db.Databases[0].More != 10 || len(db.Databases[0].Stores) != StoresMax {
		t.Errorf("databases: %d shown, %d more; stores %d, %d more", len(db.Databases), db.More, len(db.Databases[0].Stores), db.Databases[0].More)
	}
}
