package har

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// fullBuffers is what the capture holds at its caps: 500 waterfall entries
// and 100 bodies at their size limits, each body matching an entry.
func fullBuffers() ([]capture.NetworkEntry, []capture.NetworkBody) {
	network := make([]capture.NetworkEntry, capture.NetworkCap)
	bodies := make([]capture.NetworkBody, capture.BodyCap)
	resp := `{"items":"` + strings.Repeat("x", capture.MaxResponseBody-12) + `"}`
	for i := range network {
		u := fmt.Sprintf("http://localhost:3000/api/items/%d?page=%d", i%50, i)
		network[i] = capture.NetworkEntry{TS: at(i * 10), Method: "GET", URL: u, Status: 200, DurationMS: 20, Size: 1000, Page: "http://localhost:3000/"}
		if i%5 == 0 {
			bodies[i/5] = capture.NetworkBody{TS: at(i*10 + 1), Method: "GET", URL: u, Status: 200, ContentType: "application/json",
				RequestBody: strings.Repeat("r", capture.MaxRequestBody), ResponseBody: resp,
				RequestHeaders: map[string]string{"accept": "*/*", "content-type": "application/json"}, ResponseHeaders: map[string]string{"content-type": "application/json"}}
		}
	}
	return network, bodies
}

func BenchmarkBuildFullBuffers(b *testing.B) {
	network, bodies := fullBuffers()
	b.ReportAllocs()
	var n int
	for b.Loop() {
		out, err := json.Marshal(Build(network, bodies, Options{}))
		if err != nil {
			b.Fatal(err)
		}
		n = len(out)
	}
	b.ReportMetric(float64(n), "bytes/har")
}

func TestFullBuffersAreValidHAR(t *testing.T) {
	network, bodies := fullBuffers()
	out, _ := json.Marshal(Build(network, bodies, Options{}))
	if err := validate(t, out); err != nil {
		t.Fatal(err)
	}
	var l Log
	_ = json.Unmarshal(out, &l)
	withText := 0
	for _, e := range l.Log.Entries {
		if e.Response.Content.Text != "" {
			withText++
		}
	}
	if len(l.Log.Entries) != capture.NetworkCap || withText != capture.BodyCap {
		t.Fatalf("entries %d with text %d", len(l.Log.Entries), withText)
	}
}
