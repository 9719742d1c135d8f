package store

import (
	"context"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/callrecord"
)

// BenchmarkCallOutcomesByHour is the dashboard's call-outcomes query over
// a day holding 100,000 records plus as many older ones outside the
// window: the first read fills the cache of settled hours, the others
// read the hours still filling.
func BenchmarkCallOutcomesByHour(b *testing.B) {
	db, tok := callsDB(b)
	ctx := context.Background()
	now := time.Now().UTC()
	classes := []string{callrecord.ClassOK, callrecord.ClassOK, callrecord.ClassOK, "TIMEOUT", "REJECTED", "OUTCOME_UNKNOWN"}
	const n = 100_000
	for start := 0; start < 2*n; start += 5000 {
		var recs []callrecord.Record
		for i := start; i < start+5000; i++ {
			r := testCallRecord("list_orders", "agent", now.Add(-time.Duration(i)*(48*time.Hour/(2*n))))
			r.Class = classes[i%len(classes)]
			recs = append(recs, r)
		}
		if err := db.RecordCalls(ctx, tok, recs); err != nil {
			b.Fatal(err)
		}
	}
	since := now.Truncate(time.Hour).Add(-23 * time.Hour)
	b.ResetTimer()
	for range b.N {
		if _, err := db.CallOutcomesByHour(ctx, since, since.Add(24*time.Hour)); err != nil {
			b.Fatal(err)
		}
	}
}
