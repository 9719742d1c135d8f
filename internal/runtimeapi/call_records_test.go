package runtimeapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

func (a *testApp) post(path, token, body string) *httptest.ResponseRecorder {
	a.t.Helper()
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	a.srv.ServeHTTP(rec, req)
	return rec
}

func goodRecord(tool string) callrecord.Record {
	d, _ := callrecord.ArgumentsDigest(map[string]any{"id": "1"})
	return callrecord.Record{ID: callrecord.NewID(), Tool: tool, ArgumentsDigest: d, Principal: callrecord.Principal{Kind: "oidc", Subject: "ada"},
		Decision: callrecord.Allowed, Class: callrecord.ClassOK, Status: 200, Attempts: 1, At: time.Now().Add(-time.Second), DurationMS: 3}
}

func batchJSON(t *testing.T, recs ...callrecord.Record) string {
	t.Helper()
	b, err := json.Marshal(callrecord.Batch{Schema: callrecord.Schema, Records: recs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// POST /api/v1/call-records stores a valid batch (204) and refuses a
// forged one whole — with a clear 4xx, nothing stored: no token, a tool the
// console lacks, a bad digest, a decision not matching its class, too many
// records, a body over the limit, an unknown schema or field.
func TestCallRecordsEndpoint(t *testing.T) {
	a := newPublishApp(t)
	a.exposeTool("list_orders")
	token := a.token("edge")
	stored := func() int {
		t.Helper()
		_, n, err := a.db.CallRecordsPage(t.Context(), store.CallRecordFilter{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	badDigest, wrongDecision := goodRecord("list_orders"), goodRecord("list_orders")
	badDigest.ArgumentsDigest = "sha256:" + strings.Repeat("z", 64)
	wrongDecision.Class = "POLICY_DENIED"
	many := make([]callrecord.Record, callrecord.MaxBatch+1)
	for i := range many {
		many[i] = goodRecord("list_orders")
	}
	huge := goodRecord("list_orders")
	huge.Principal.Subject = strings.Repeat("a", callrecord.MaxBodyBytes)
	tests := []struct {
		name, token, body string
		status            int
		says              string
	}{
		{"no token", "", batchJSON(t, goodRecord("list_orders")), 401, "runtime token"},
		{"unknown tool", token, batchJSON(t, goodRecord("list_orders"), goodRecord("drop_tables")), 400, `tool \"drop_tables\"`},
		{"not a tool name", token, batchJSON(t, goodRecord("../x")), 400, "not a tool name"},
		{"bad digest", token, batchJSON(t, badDigest), 400, "arguments_digest"},
		{"decision and class disagree", token, batchJSON(t, wrongDecision), 400, "does not go with class"},
		{"too many records", token, batchJSON(t, many...), 400, "at most 100"},
		{"body too large", token, batchJSON(t, huge), 413, "at most"},
		{"unknown schema", token, `{"schema":"toolgate.call-records/v9","records":[]}`, 400, "unknown batch schema"},
		{"unknown field", token, `{"schema":"toolgate.call-records/v1","records":[],"arguments":{"id":1}}`, 400, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := a.post("/api/v1/call-records", tt.token, tt.body)
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.says) {
				t.Fatalf("%d %s, want %d saying %q", rec.Code, rec.Body.String(), tt.status, tt.says)
			}
			if n := stored(); n != 0 {
				t.Fatalf("%d records stored from a refused batch", n)
			}
		})
	}
	ok := batchJSON(t, goodRecord("list_orders"), goodRecord("list_orders"))
	wantStatus(t, a.post("/api/v1/call-records", token, ok), 204)
	wantStatus(t, a.post("/api/v1/call-records", token, ok), 204) // sent again: stored once
	if n := stored(); n != 2 {
		t.Fatalf("stored %d, want 2", n)
	}
}

// Records older than the retention are deleted by the API's background
// loop (at start, then hourly); newer ones stay.
func TestCallRecordsPrunedPastRetention(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.MustAddTool(t, db, storetest.FixtureTool{Source: "orders", Name: "list_orders", Method: "GET", Path: "/orders", Class: risk.Read})
	tok, _, err := db.CreateRuntimeToken(t.Context(), "test", "edge")
	if err != nil {
		t.Fatal(err)
	}
	old, fresh := goodRecord("list_orders"), goodRecord("list_orders")
	old.At = time.Now().Add(-8 * 24 * time.Hour)
	if err := db.RecordCalls(t.Context(), tok.ID, []callrecord.Record{old, fresh}); err != nil {
		t.Fatal(err)
	}
	svc, err := New(t.Context(), Config{Store: db, Logger: slog.New(slog.DiscardHandler), CallRecordRetention: 7 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close(context.Background()) })
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		recs, n, err := db.CallRecordsPage(t.Context(), store.CallRecordFilter{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 && recs[0].ID == fresh.ID {
			return
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("after 5 s: %d records %+v", n, recs)
		}
	}
}

// The fasthttp listener takes a batch as the console's listener does (the
// body reaches the same handler through the adaptor).
func TestCallRecordsOnTheFastHTTPListener(t *testing.T) {
	a := newPublishApp(t)
	a.exposeTool("list_orders")
	token := a.token("edge")
	req, err := http.NewRequest("POST", serveRuntimeAPI(t, a)+"/api/v1/call-records", strings.NewReader(batchJSON(t, goodRecord("list_orders"))))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, n, _ := a.db.CallRecordsPage(t.Context(), store.CallRecordFilter{Limit: 1}); resp.StatusCode != 204 || n != 1 {
		t.Fatalf("status %d, %d stored", resp.StatusCode, n)
	}
}
