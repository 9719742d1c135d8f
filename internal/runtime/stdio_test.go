package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/sampleapi"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// pipedSession is what `printf '...' | toolgate runtime --stdio` sends:
// initialize, initialized, then one tools/call, then end of input.
const pipedSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"getOrder","arguments":{"order_id":"ord_0001"}}}
`

// responseIDs lists the ids of the JSON-RPC responses on stdout.
func responseIDs(t *testing.T, out string) []string {
	t.Helper()
	var ids []string
	for line := range strings.Lines(out) {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		ids = append(ids, string(msg.ID))
	}
	return ids
}

// TestServeStdioDrain: after stdin ends, a call in flight is still
// answered when it finishes within the drain time, and cut off (with a
// warning) when it does not, so a vanished client cannot keep the process.
func TestServeStdioDrain(t *testing.T) {
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	t.Cleanup(hanging.Close)
	api, slow := upstream(t)
	api.SetFaults(sampleapi.Faults{DelayMS: 200})
	tests := []struct {
		name     string
		origin   string
		drain    time.Duration
		wantIDs  []string
		maxTook  time.Duration
		wantWarn bool
	}{
		{"slow call finishes inside the drain", slow.URL, 5 * time.Second, []string{"1", "2"}, 4 * time.Second, false},
		{"hanging call is cut at the drain", hanging.URL, 150 * time.Millisecond, []string{"1"}, 3 * time.Second, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := testKey(t, 1)
			con := newFakeConsole(t, keySet(k))
			clk := newClock()
			con.publish(signBundle(t, k, 1, clk.Now(), 0, tc.origin, getOrderTool()))
			var logs syncbuf.Buffer
			r := newRuntime(t, rtOpts{keys: keySet(k), console: con.URL, logs: &logs, clock: clk})
			mustSync(t, r)
			var stdout syncbuf.Buffer
			start := time.Now()
			if err := r.ServeStdio(context.Background(), strings.NewReader(pipedSession), &stdout, tc.drain); err != nil {
				t.Fatalf("ServeStdio: %v", err)
			}
			took := time.Since(start)
			if took > tc.maxTook || took < min(tc.drain, 150*time.Millisecond) {
				t.Errorf("ServeStdio took %s; want between %s and %s", took, min(tc.drain, 150*time.Millisecond), tc.maxTook)
			}
			if got := responseIDs(t, stdout.String()); strings.Join(got, ",") != strings.Join(tc.wantIDs, ",") {
				t.Errorf("responses to %v, want %v; stdout:\n%s", got, tc.wantIDs, stdout.String())
			}
			if warned := strings.Contains(logs.String(), "giving up on requests still unanswered"); warned != tc.wantWarn {
				t.Errorf("drain warning logged = %v, want %v; logs:\n%s", warned, tc.wantWarn, logs.String())
			}
		})
	}
}
