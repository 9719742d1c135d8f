package runtimeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// BenchmarkCallRequests measures the console side of per-call decisions
// (R16) over loopback HTTP, on SQLite and on PostgreSQL (pgtest's local
// server), engine after engine so the figures compare as ratios:
//
//   - file: the console's capacity for new call requests per second,
//     from 8 runtimes at once (each request audited, under the write lock
//     every console shares);
//
//   - consume: the round trip a runtime adds before an approved call,
//     spending a grant, against the plain bundle fetch it makes anyway (a
//     304), as p50s and their ratio.
//
//     make bench-calls   # go test -run '^$' -bench BenchmarkCallRequests -benchtime 400x ./internal/runtimeapi
//
// The README's "Per-call decisions" section has one run's figures.
func BenchmarkCallRequests(b *testing.B) {
	for _, engine := range []store.Engine{store.SQLite, store.Postgres} {
		b.Run("file/"+string(engine), func(b *testing.B) { benchFile(b, engine) })
	}
	for _, engine := range []store.Engine{store.SQLite, store.Postgres} {
		b.Run("consume/"+string(engine), func(b *testing.B) { benchConsume(b, engine) })
	}
}

// callBenchApp is the runtime API over engine behind a loopback listener.
func callBenchApp(b *testing.B, engine store.Engine) (*callApp, *httptest.Server) {
	c := newCallApp(b, storetest.MustOpenEngine(b, engine), approval.Limits{PerPrincipal: 1 << 30, PerTool: 1 << 30})
	srv := httptest.NewServer(c.srv)
	b.Cleanup(srv.Close)
	return c, srv
}

func benchFile(b *testing.B, engine store.Engine) {
	c, srv := callBenchApp(b, engine)
	var n atomic.Int64
	b.SetParallelism(4) // 8 goroutines on 2 cores
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		client := &http.Client{}
		for pb.Next() {
			in := c.call("refund", policy.PerCallApprove, fmt.Sprintf("agent-%d", n.Add(1)), 1)
			if code := post(b, client, srv.URL+callgate.PathRequests, c.auth, in); code != http.StatusCreated {
				b.Errorf("file: %d", code)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "requests/s")
}

func benchConsume(b *testing.B, engine store.Engine) {
	c, srv := callBenchApp(b, engine)
	bob := mustApprover(b, c.db, "bob@example.com")
	key := c.grantKey()
	grants := make([]string, b.N)
	for i := range grants { // not timed: one approved request per consume
		st := c.status(c.send("POST", callgate.PathRequests, c.call("refund", policy.PerCallApprove, "alice", i)), 201)
		cr, err := c.db.DecideCallRequest(context.Background(), store.CallDecision{UserID: bob.ID, ID: st.ID, Approve: true, Grant: key})
		if err != nil {
			b.Fatal(err)
		}
		grants[i] = cr.Grant
	}
	client := &http.Client{}
	etag := ""
	fetch := func() time.Duration {
		req, _ := http.NewRequest("GET", srv.URL+"/api/v1/bundle", nil)
		req.Header.Set("Authorization", c.auth["Authorization"])
		req.Header.Set("If-None-Match", etag)
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != http.StatusNotModified {
			b.Fatalf("bundle fetch: %v %v", resp, err)
		}
		resp.Body.Close()
		return time.Since(t0)
	}
	first := c.send("GET", "/api/v1/bundle", nil) // the ETag this runtime is served
	etag = first.Header().Get("ETag")
	consumed, fetched := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N { // interleaved, so both see the same load
		fetched = append(fetched, fetch())
		t0 := time.Now()
		if code := post(b, client, srv.URL+callgate.PathConsume, c.auth, callgate.Consume{Grant: grants[i], Instance: "rt"}); code != http.StatusNoContent {
			b.Fatalf("consume: %d", code)
		}
		consumed = append(consumed, time.Since(t0))
	}
	b.StopTimer()
	pc, pf := p50(consumed), p50(fetched)
	b.ReportMetric(float64(pc.Microseconds()), "consume-p50-µs")
	b.ReportMetric(float64(pf.Microseconds()), "fetch304-p50-µs")
	b.ReportMetric(float64(pc)/float64(pf), "consume/fetch")
}

func post(b *testing.B, client *http.Client, url string, auth map[string]string, body any) int {
	raw, err := json.Marshal(body)
	if err != nil {
		b.Fatal(err)
	}
	req, _ := http.NewRequest("POST", url, bytes.NewReader(raw))
	req.Header.Set("Authorization", auth["Authorization"])
	resp, err := client.Do(req)
	if err != nil {
		b.Error(err)
		return 0
	}
	defer resp.Body.Close()
	return resp.StatusCode
}

func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
