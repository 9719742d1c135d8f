package runtime

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/callsummary"
	"github.com/toolgate/toolgate/internal/principal"
)

// summariesConsole is a fake console that also takes call summary
// batches (or answers 503 while away).
type summariesConsole struct {
	srv       *httptest.Server
	mu        sync.Mutex
	away      bool
	instances []string
	batches   [][]callsummary.Summary
}

func newSummariesConsole(t *testing.T, con *fakeConsole) *summariesConsole {
	sc := &summariesConsole{}
	sc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/call-summaries" {
			con.serve(w, r)
			return
		}
		sc.mu.Lock()
		defer sc.mu.Unlock()
		if sc.away || r.Header.Get("Authorization") != "Bearer "+testToken {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		body, _ := io.ReadAll(r.Body)
		sums, err := callsummary.ParseBatch(body, testNow())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		sc.instances = append(sc.instances, r.Header.Get(HeaderInstanceID))
		sc.batches = append(sc.batches, sums)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(sc.srv.Close)
	return sc
}

// take returns and forgets the summaries received so far.
func (sc *summariesConsole) take() []callsummary.Summary {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	var out []callsummary.Summary
	for _, b := range sc.batches {
		out = append(out, b...)
	}
	sc.batches = nil
	return out
}

// Calls on a tool of the bundle are counted into their minute and the
// minute is delivered on the next fetch with the runtime's instance id;
// more calls in the same minute send it again, cumulative (the console
// replaces it); a minute delivered and ended is forgotten. Names not in
// the bundle are not counted.
func TestCallSummariesCountedAndDelivered(t *testing.T) {
	k := testKey(t, 1)
	clk := newClock()
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
	sc := newSummariesConsole(t, con)
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: sc.srv.URL})
	mustSync(t, r)
	ctx := principal.NewContext(context.Background(), principal.New(principal.OIDC, "ada", "inspector", nil))
	for range 2 {
		r.Call(ctx, "getOrder", map[string]any{"order_id": "ord_0001"}) // the sample API answers 404
	}
	r.Call(ctx, "noSuchTool", nil)
	mustSync(t, r)
	got := sc.take()
	if len(got) != 1 {
		t.Fatalf("delivered %+v, want one summary", got)
	}
	s := got[0]
	if s.Tool != "getOrder" || s.Class != "REJECTED" || s.Status != 404 || s.Decision != "allowed" || s.Calls != 2 || s.Attempts != 2 ||
		!s.Minute.Equal(callsummary.Minute(clk.Now())) || len(s.Principals) != 1 || s.Principals[0] != "oidc:ada" || latencySum(s) != 2 {
		t.Fatalf("summary %+v", s)
	}
	if sc.instances[0] != r.instanceID {
		t.Errorf("sent with instance %q, want %q", sc.instances[0], r.instanceID)
	}
	mustSync(t, r)
	if got := sc.take(); len(got) != 0 {
		t.Fatalf("an unchanged minute sent again: %+v", got)
	}
	r.Call(ctx, "getOrder", map[string]any{"order_id": "ord_0001"})
	mustSync(t, r)
	if got := sc.take(); len(got) != 1 || got[0].Calls != 3 {
		t.Fatalf("the minute after one more call: %+v, want it again with 3 calls", got)
	}
	clk.Advance(time.Minute)
	mustSync(t, r)
	if n := len(r.summaries.entries); n != 0 {
		t.Fatalf("%d summaries held after their minute ended and was delivered", n)
	}
}

// While the console is away, summaries wait, bounded by
// maxSummaryEntries whatever the number of minutes: the oldest minute is
// dropped and counted; back, the console gets the newest.
func TestCallSummariesBoundedWhileAway(t *testing.T) {
	k := testKey(t, 1)
	clk := newClock()
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
	sc := newSummariesConsole(t, con)
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: sc.srv.URL})
	mustSync(t, r)
	sc.mu.Lock()
	sc.away = true
	sc.mu.Unlock()
	start := clk.Now().Add(-(maxSummaryEntries + 10) * time.Minute)
	for i := range maxSummaryEntries + 10 {
		r.summaries.add(callOutcome{at: start.Add(time.Duration(i) * time.Minute), tool: "getOrder", decision: "allowed", class: "OK", principal: "anonymous"})
	}
	mustSync(t, r)
	if n := len(r.summaries.entries); n != maxSummaryEntries {
		t.Fatalf("%d summaries held, want %d", n, maxSummaryEntries)
	}
	if m := scrape(t, r); !strings.Contains(m, "toolgate_runtime_call_summaries_dropped_total 10") {
		t.Errorf("dropped summaries not counted:\n%s", m)
	}
	sc.mu.Lock()
	sc.away = false
	sc.mu.Unlock()
	mustSync(t, r)
	got := sc.take()
	if len(got) != maxSummaryBatches*callsummary.MaxBatch || !got[0].Minute.Equal(start.Add(10*time.Minute)) {
		t.Fatalf("one fetch delivered %d summaries from %v, want %d from the oldest kept", len(got), got[0].Minute, maxSummaryBatches*callsummary.MaxBatch)
	}
}

func latencySum(s callsummary.Summary) int64 {
	var n int64
	for _, v := range s.Latency {
		n += v
	}
	return n
}
