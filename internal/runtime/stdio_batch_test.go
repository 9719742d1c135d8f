package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// Over stdio a JSON-RPC batch is refused under a protocol version that
// removed batching (2025-06-18 and later) with the JSON-RPC error of an
// invalid request, and the session goes on; under 2025-03-26, which has
// batches, it is answered with a batch.
func TestServeStdioBatchesFollowTheNegotiatedVersion(t *testing.T) {
	for _, tt := range []struct {
		version   string
		wantBatch bool
	}{
		{"2025-06-18", false},
		{"2025-11-25", false},
		{"2025-03-26", true},
	} {
		t.Run(tt.version, func(t *testing.T) {
			k := testKey(t, 1)
			con := newFakeConsole(t, keySet(k))
			clk := newClock()
			con.publish(signBundle(t, k, 1, clk.Now(), 0, "https://api.example.com", getOrderTool()))
			r := newRuntime(t, rtOpts{keys: keySet(k), console: con.URL, clock: clk})
			mustSync(t, r)
			in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tt.version + `","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
[{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3,"method":"ping"}]
{"jsonrpc":"2.0","id":4,"method":"tools/list"}
`
			var stdout syncbuf.Buffer
			if err := r.ServeStdio(context.Background(), strings.NewReader(in), &stdout, 0); err != nil {
				t.Fatalf("ServeStdio: %v", err)
			}
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			if len(lines) != 3 {
				t.Fatalf("%d lines on stdout, want 3 (initialize, the batch, id 4):\n%s", len(lines), stdout.String())
			}
			var batch, refusal, last []byte
			for _, l := range lines {
				switch {
				case strings.HasPrefix(l, "["):
					batch = []byte(l)
				case strings.Contains(l, `"id":null`):
					refusal = []byte(l)
				case strings.Contains(l, `"id":4`):
					last = []byte(l)
				}
			}
			if last == nil || !strings.Contains(string(last), "getOrder") {
				t.Errorf("the request after the batch is not answered: %s", stdout.String())
			}
			if tt.wantBatch {
				var resps []map[string]any
				if err := json.Unmarshal(batch, &resps); err != nil || len(resps) != 2 {
					t.Errorf("batch answer %s (%v), want two responses", batch, err)
				}
				return
			}
			var resp struct {
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(refusal, &resp); err != nil || resp.Error.Code != -32600 ||
				!strings.Contains(resp.Error.Message, "batches are not part of MCP "+tt.version) {
				t.Errorf("batch under %s answered %s, want error -32600 with id null; stdout:\n%s", tt.version, refusal, stdout.String())
			}
		})
	}
}
