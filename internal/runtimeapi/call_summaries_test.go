package runtimeapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/callsummary"
	"github.com/toolgate/toolgate/internal/store"
)

func goodSummary(tool, class string, calls int64) callsummary.Summary {
	s := callsummary.Summary{Minute: callsummary.Minute(time.Now()), Tool: tool, Principals: []string{"oidc:ada"},
		Counts: callsummary.Counts{Decision: "allowed", Class: class, Status: 200, Calls: calls, Attempts: calls}}
	s.Latency[2] = calls
	return s
}

func summariesJSON(t *testing.T, sums ...callsummary.Summary) string {
	t.Helper()
	b, err := json.Marshal(callsummary.Batch{Schema: callsummary.Schema, Summaries: sums})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// POST /api/v1/call-summaries stores a valid batch (204), a batch sent
// twice once, and refuses a forged one whole with a 4xx saying why.
func TestCallSummariesEndpoint(t *testing.T) {
	a := newPublishApp(t)
	a.exposeTool("list_orders")
	token := a.token("edge")
	calls := func() int64 {
		t.Helper()
		got, err := a.db.CallOutcomes(t.Context(), "list_orders", store.SummaryWindow{Since: time.Now().Add(-time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, c := range got {
			n += c.Calls
		}
		return n
	}
	future, unaligned, histogram, attempts := goodSummary("list_orders", "OK", 1), goodSummary("list_orders", "OK", 1),
		goodSummary("list_orders", "OK", 2), goodSummary("list_orders", "OK", 1)
	future.Minute = future.Minute.Add(time.Hour)
	unaligned.Minute = unaligned.Minute.Add(time.Second)
	histogram.Latency[2] = 1
	attempts.Attempts = 6
	denied := goodSummary("list_orders", "TOOL_NOT_EXPOSED", 1)
	many := make([]callsummary.Summary, callsummary.MaxBatch+1)
	for i := range many {
		many[i] = goodSummary("list_orders", "OK", 1)
	}
	tests := []struct {
		name, token, body string
		status            int
		says              string
	}{
		{"no token", "", summariesJSON(t, goodSummary("list_orders", "OK", 1)), 401, "runtime token"},
		{"not a tool name", token, summariesJSON(t, goodSummary("../x", "OK", 1)), 400, "not a tool name"},
		{"minute in the future", token, summariesJSON(t, future), 400, "start of a minute"},
		{"minute not whole", token, summariesJSON(t, unaligned), 400, "start of a minute"},
		{"histogram short of the calls", token, summariesJSON(t, histogram), 400, "latency histogram"},
		{"six attempts a call", token, summariesJSON(t, attempts), 400, "attempts"},
		{"decision and class disagree", token, summariesJSON(t, denied), 400, "does not go with class"},
		{"too many", token, summariesJSON(t, many...), 400, "at most 200"},
		{"unknown schema", token, `{"schema":"toolgate.call-summaries/v9","summaries":[]}`, 400, "unknown batch schema"},
		{"unknown field", token, `{"schema":"toolgate.call-summaries/v1","summaries":[],"x":1}`, 400, "unknown field"},
		{"body too large", token, `{"schema":"` + strings.Repeat("a", callsummary.MaxBodyBytes) + `"}`, 413, "at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := a.post("/api/v1/call-summaries", tt.token, tt.body+"")
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.says) {
				t.Fatalf("%d %s, want %d saying %q", rec.Code, rec.Body.String(), tt.status, tt.says)
			}
			if n := calls(); n != 0 {
				t.Fatalf("%d calls stored from a refused batch", n)
			}
		})
	}
	ok := summariesJSON(t, goodSummary("list_orders", "OK", 3), goodSummary("gone_tool", "OK", 1))
	wantStatus(t, a.post("/api/v1/call-summaries", token, ok), 204)
	wantStatus(t, a.post("/api/v1/call-summaries", token, ok), 204) // sent again: the same minute replaced
	if n := calls(); n != 3 {
		t.Fatalf("stored %d calls, want 3", n)
	}
}
