package server

import (
	"context"
	"time"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/storage"
)

// includeValuesParam asks observe storage for IndexedDB records too.
var includeValuesParam = newParam[bool]("include_values", "")

// storageTimeout bounds a storage read: IndexedDB opens each database.
const storageTimeout = 10 * time.Second

// storageReader answers observe{what:"storage"}: the extension reads the
// tab's origin (its content script the page's storages, its worker the
// cookies) unless the human turned storage_reads off, and what it sends
// passes the secret rules and the caps again here (features/storage). No
// pilot is needed: it reads, as the DevTools Application panel does.
type storageReader struct {
	queries *browser.Broker
}

// storageParams are the query's parameters as the extension reads them.
type storageParams struct {
	IncludeValues bool `json:"include_values,omitempty"`
}

func (sr storageReader) observe(ctx context.Context, a args) (any, error) {
	var r storage.Result
	p := storageParams{IncludeValues: includeValuesParam.get(a)}
	resp, err := askPage(ctx, sr.queries, browser.KindStorage, tabParam.get(a), p, storageTimeout, &r)
	if err != nil {
		return nil, err
	}
	if r.URL == "" {
		r.URL = resp.URL
	}
	r.Enforce()
	return &storageObserved{Tab: resp.Tab, Result: r}, nil
}

// storageObserved is observe storage's answer, with what rides along.
type storageObserved struct {
	riders
	Tab int `json:"tab,omitempty"`
	storage.Result
}

var _ observed = (*storageObserved)(nil)
