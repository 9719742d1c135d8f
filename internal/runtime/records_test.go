package runtime

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/principal"
)

// recordsConsole is a fake console that also takes call record batches
// (or refuses them with 503 while away).
type recordsConsole struct {
	*fakeConsole
	srv     *httptest.Server
	mu      sync.Mutex
	away    bool
	batches []callrecord.Batch
}

func newRecordsConsole(t *testing.T, con *fakeConsole) *recordsConsole {
	rc := &recordsConsole{fakeConsole: con}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/call-records" {
			con.serve(w, r)
			return
		}
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.away || r.Header.Get("Authorization") != "Bearer "+testToken {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var b callrecord.Batch
		if _, err := callrecord.ParseBatch(body, testNow()); err != nil || json.Unmarshal(body, &b) != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.batches = append(rc.batches, b)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func testNow() time.Time { return t0.Add(time.Hour) }

func (rc *recordsConsole) received() []callrecord.Record {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []callrecord.Record
	for _, b := range rc.batches {
		out = append(out, b.Records...)
	}
	return out
}

// Every tools/call decision is recorded with its principal, decision and
// the digest of its arguments, and delivered on the next fetch in batches
// of at most callrecord.MaxBatch; while the console does not take them the
// buffer keeps the newest maxBufferedRecords and counts the dropped.
func TestCallRecordsBufferedAndDelivered(t *testing.T) {
	k := testKey(t, 1)
	clk := newClock()
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
	rc := newRecordsConsole(t, con)
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: rc.srv.URL})
	mustSync(t, r)
	ctx := principal.NewContext(context.Background(), principal.New(principal.OIDC, "ada", "inspector", nil))
	if res := r.Call(ctx, "getOrder", map[string]any{"order_id": "ord_0001"}); res.Attempts != 1 {
		t.Fatalf("allowed call not sent: %+v", res.Err) // the sample API answers 404: an outcome like any
	}
	r.Call(ctx, "deleteEverything", map[string]any{"order_id": "ord_0001"})
	mustSync(t, r)
	got := rc.received()
	if len(got) != 2 {
		t.Fatalf("delivered %d records, want 2", len(got))
	}
	digest, _ := callrecord.ArgumentsDigest(map[string]any{"order_id": "ord_0001"})
	allowed, denied := got[0], got[1]
	if allowed.Tool != "getOrder" || allowed.Decision != callrecord.Allowed || allowed.Class != "REJECTED" || allowed.Status != 404 || allowed.Attempts != 1 ||
		allowed.ArgumentsDigest != digest || allowed.DefinitionDigest == "" || allowed.Principal != (callrecord.Principal{Kind: "oidc", Subject: "ada", ClientID: "inspector"}) {
		t.Errorf("allowed record %+v", allowed)
	}
	if denied.Tool != "deleteEverything" || denied.Decision != callrecord.DeniedExposure || denied.Class != "TOOL_NOT_EXPOSED" || denied.Attempts != 0 {
		t.Errorf("denied record %+v", denied)
	}

	// The console away: records wait, bounded, the oldest dropped and counted.
	rc.mu.Lock()
	rc.away = true
	rc.mu.Unlock()
	for range maxBufferedRecords + 5 {
		r.Call(ctx, "deleteEverything", nil)
	}
	mustSync(t, r)
	if n := len(r.records.pending); n != maxBufferedRecords {
		t.Fatalf("%d records buffered, want %d", n, maxBufferedRecords)
	}
	if m := scrape(t, r); !strings.Contains(m, "toolgate_runtime_call_records_dropped_total 5") {
		t.Errorf("dropped records not counted:\n%s", m)
	}
	rc.mu.Lock()
	rc.away, rc.batches = false, nil
	rc.mu.Unlock()
	mustSync(t, r)
	if n := len(rc.received()); n != maxRecordBatches*callrecord.MaxBatch {
		t.Fatalf("one fetch delivered %d records, want %d", n, maxRecordBatches*callrecord.MaxBatch)
	}
	for _, b := range rc.batches {
		if len(b.Records) > callrecord.MaxBatch {
			t.Fatalf("a batch of %d records", len(b.Records))
		}
	}
}
