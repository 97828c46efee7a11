package streaming_test

import (
	"context"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/streaming"
)

// Example is the wiring a server needs: every stored entry goes through
// ObserveEvent, one Run loop delivers, and configure toggles it.
func Example() {
	store := capture.NewStore()
	st := streaming.New(streaming.Options{}) // Secrets: the security package's check
	store.Subscribe(st.ObserveEvent)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go st.Run(ctx, func(n streaming.Notification) {
		// mcpServer.SendNotificationToAllClients(streaming.Method, n.Params())
		// and the same n on GET /events/stream.
	})

	on := true
	st.Configure(streaming.Update{Enabled: &on})
}

// TestFromTheStore feeds the streamer from a real capture.Store, as the
// server will.
func TestFromTheStore(t *testing.T) {
	now := time.Date(2026, 1, 20, 14, 30, 0, 0, time.UTC)
	store := capture.NewStore()
	st := streaming.New(streaming.Options{Now: func() time.Time { return now }})
	store.Subscribe(st.ObserveEvent)
	on := true
	if _, err := st.Configure(streaming.Update{Enabled: &on}); err != nil {
		t.Fatal(err)
	}
	store.AddNetwork([]capture.NetworkEntry{{Method: "post", URL: "http://app.test/api/users", Status: 500, Page: "http://app.test/"}})
	store.AddActions([]capture.Action{
		{Type: "click", Selector: "#save"}, {Type: "click", Selector: "#save"}, {Type: "click", Selector: "#save"},
	})
	n, _ := st.Tick(now.Add(streaming.BatchWindow))
	if n == nil || len(n.Events) != 2 || n.Events[0].Message != "Server error: POST /api/users → 500" ||
		n.Events[1].Message != "Repeated clicks on #save — handler may be broken" {
		t.Fatalf("got %+v", n)
	}
}
