package testgen

import (
	"fmt"
	"testing"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
)

// fullSession is what the capture holds at its caps: 200 actions (a page
// visited every ten, fields typed, buttons clicked), the 500 requests they
// caused and 100 bodies, and a DOM state.
func fullSession() Session {
	var s Session
	for i := range capture.ActionCap {
		ms := i * 1000
		u := fmt.Sprintf("http://localhost:3000/step/%d", i/10)
		switch {
		case i%10 == 0:
			s.Actions = append(s.Actions, nav(ms, u))
		case i%3 == 0:
			s.Actions = append(s.Actions, capture.Action{TS: at(ms), Type: "click", Selector: fmt.Sprintf("#form%d > button", i), Text: "Next", Page: u})
		default:
			s.Actions = append(s.Actions, capture.Action{TS: at(ms), Type: "input", Selector: fmt.Sprintf(`input[name="f%d"]`, i), InputType: "text", Value: "some typed value", Page: u})
		}
	}
	for i := range capture.NetworkCap {
		u := fmt.Sprintf("http://localhost:3000/api/items/%d", i%40)
		s.Network = append(s.Network, capture.NetworkEntry{TS: at(i*400 + 50), Method: "GET", URL: u, Status: 200, Page: "http://localhost:3000/"})
		if i%5 == 0 {
			s.Bodies = append(s.Bodies, capture.NetworkBody{TS: at(i*400 + 51), Method: "GET", URL: u, Status: 200, ContentType: "application/json",
				ResponseBody: `{"id":1,"name":"x","tags":["a"],"owner":{"id":2,"email":"e"},"items":[{"sku":"s","qty":1}]}`})
		}
	}
	s.DOM = &DOM{URL: "http://localhost:3000/step/19", Headings: []browser.Heading{{Level: 1, Text: "Done"}}}
	return s
}

func BenchmarkGenerate200Actions(b *testing.B) {
	s := fullSession()
	b.ReportAllocs()
	var n int
	for b.Loop() {
		res, err := Generate(s, Options{MockAPI: true, Screenshots: true})
		if err != nil {
			b.Fatal(err)
		}
		n = len(res.Script)
	}
	b.ReportMetric(float64(n), "bytes/test")
}
