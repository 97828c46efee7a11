package server

import (
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/screenshots"
)

// errorShots keeps the screenshots the extension takes when a page throws,
// in the screenshots folder, and attaches each to its error.
type errorShots struct {
	dir   *screenshots.Dir // nil: screenshots are disabled
	store *capture.Store
}

func (e *errorShots) routes(r routes) {
	r.handle("POST /screenshots", e.handleUpload)
}

// screenshotUpload is a PNG the extension captured for an error.
type screenshotUpload struct {
	Tab   int          `json:"tab"`
	TS    capture.Time `json:"ts"` // the error's time
	Image string       `json:"image"`
}

func (e *errorShots) handleUpload(w http.ResponseWriter, r *http.Request) {
	if e.dir == nil {
		writeProblem(w, problem.New(problem.NotFound, "screenshots are disabled on this server"))
		return
	}
	var up screenshotUpload
	if err := decodeBody(r, &up); err != nil {
		writeProblem(w, err)
		return
	}
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(up.Image, "data:image/png;base64,"))
	if err != nil {
		writeProblem(w, problem.New(problem.InvalidParam, "image: want a base64 PNG or a data:image/png URL"))
		return
	}
	if up.TS.IsZero() {
		up.TS.Time = time.Now()
	}
	file, err := e.dir.Save(up.TS.Time, up.Tab, png)
	if err != nil {
		writeProblem(w, problem.New(problem.InvalidParam, "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"file": file, "attached": e.store.AttachScreenshot(up.Tab, up.TS, file)})
}
