package store

import (
	"context"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/risk"
)

func testCallRecord(tool, subject string, at time.Time) callrecord.Record {
	d, _ := callrecord.ArgumentsDigest(map[string]any{"id": 7})
	return callrecord.Record{ID: callrecord.NewID(), Tool: tool, ArgumentsDigest: d,
		Principal: callrecord.Principal{Kind: "token", Subject: subject}, Decision: callrecord.Allowed,
		Class: callrecord.ClassOK, Status: 200, Attempts: 1, At: at, DurationMS: 12}
}

// Call records are stored once per id, listed by tool and by principal
// newest first, refused whole when one names a tool the console lacks, and
// pruned by their time.
func TestCallRecordsStoredListedPruned(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	MustAddTool(t, db, FixtureTool{Source: "orders", Name: "list_orders", Method: "GET", Path: "/orders", Class: risk.Read})
	MustAddTool(t, db, FixtureTool{Source: "orders", Name: "get_order", Method: "GET", Path: "/orders/{id}", Class: risk.Read})
	tok, _, err := db.CreateRuntimeToken(ctx, "test", "edge")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	old := testCallRecord("list_orders", "agent-a", now.Add(-48*time.Hour))
	recs := []callrecord.Record{old, testCallRecord("list_orders", "agent-b", now.Add(-time.Minute)),
		testCallRecord("get_order", "agent-a", now)}
	if err := db.RecordCalls(ctx, tok.ID, recs); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordCalls(ctx, tok.ID, recs[:1]); err != nil { // sent again
		t.Fatal(err)
	}
	bad := []callrecord.Record{testCallRecord("get_order", "x", now), testCallRecord("no_such_tool", "x", now)}
	if err := db.RecordCalls(ctx, tok.ID, bad); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a record of an unknown tool: %v, want invalid", err)
	}
	all, total, err := db.CallRecordsPage(ctx, CallRecordFilter{Limit: 10})
	if err != nil || total != 3 || len(all) != 3 || all[0].Tool != "get_order" || all[0].TokenName != "edge" {
		t.Fatalf("all: %d %+v %v", total, all, err)
	}
	byTool, total, _ := db.CallRecordsPage(ctx, CallRecordFilter{Tool: "list_orders", Limit: 1, Offset: 1})
	if total != 2 || len(byTool) != 1 || byTool[0].ID != old.ID || !byTool[0].At.Equal(old.At) || byTool[0].ArgumentsDigest != old.ArgumentsDigest {
		t.Fatalf("by tool, page 2: %d %+v", total, byTool)
	}
	byWho, total, _ := db.CallRecordsPage(ctx, CallRecordFilter{PrincipalKind: "token", Subject: "agent-a", Limit: 10})
	if total != 2 || len(byWho) != 2 || byWho[0].Tool != "get_order" {
		t.Fatalf("by principal: %d %+v", total, byWho)
	}
	n, err := db.PruneCallRecords(ctx, now.Add(-24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	if _, total, _ := db.CallRecordsPage(ctx, CallRecordFilter{Limit: 10}); total != 2 {
		t.Fatalf("after prune: %d", total)
	}
}
