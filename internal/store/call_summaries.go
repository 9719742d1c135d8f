package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/callsummary"
)

// Call summary buckets (migrations/0020_call_summaries.sql).
const (
	grainMinute = "minute"
	grainHour   = "hour"
	grainDay    = "day"
)

// summaryCounters are the summed columns of call_summaries, in order.
var summaryCounters = func() []string {
	cols := []string{"calls", "attempts", "retried", "retry_after", "circuit_opens"}
	for i := range callsummary.Buckets {
		cols = append(cols, fmt.Sprintf("l%02d", i))
	}
	return cols
}()

// summaryKeyCols are the key columns of call_summaries after grain and
// bucket.
const summaryKeyCols = "tool, token_id, instance, decision, class, status"

// summaryUpsert replaces the counters of a bucket already held: a runtime
// sends a minute's cumulative counts, so the newest copy is the truth.
var summaryUpsert = func() string {
	set := make([]string, len(summaryCounters))
	for i, c := range summaryCounters {
		set[i] = c + " = excluded." + c
	}
	return ` ON CONFLICT (grain, tool, bucket, token_id, instance, decision, class, status) DO UPDATE SET ` + strings.Join(set, ", ")
}()

var insertSummariesSQL = batchSQL{
	head: `INSERT INTO call_summaries (grain, bucket, ` + summaryKeyCols + `, ` + strings.Join(summaryCounters, ", ") + `) VALUES `,
	row:  `(?` + strings.Repeat(", ?", 7+len(summaryCounters)) + `)`,
	tail: summaryUpsert,
}

var insertPrincipalsSQL = batchSQL{head: `INSERT INTO call_summary_principals (tool, day, principal) VALUES `,
	row: `(?, ?, ?)`, tail: ` ON CONFLICT (tool, day, principal) DO NOTHING`}

// StoreCallSummaries stores the minute summaries (checked by
// callsummary.ParseBatch) runtime instance instance of token tokenID
// reported, replacing what it reported before for the same minutes, and
// the principals of their allowed calls by day. Summaries of tools this
// console does not have (any more) and of minutes before oldest are left
// out; stored says how many were kept.
func (db *DB) StoreCallSummaries(ctx context.Context, tokenID int64, instance string, sums []callsummary.Summary, oldest time.Time) (stored int, err error) {
	if len(sums) == 0 {
		return 0, nil
	}
	names := make([]string, 0, len(sums))
	for _, s := range sums {
		names = append(names, s.Tool)
	}
	err = db.inTx(ctx, "store call summaries", func(tx *sqlx.Tx) error {
		known, _, err := knownTools(ctx, tx, names)
		if err != nil {
			return err
		}
		rows, principals := summaryRows(sums, tokenID, instance, known, oldest)
		stored = len(rows)
		if err := db.execBatches(ctx, tx, insertSummariesSQL, rows); err != nil {
			return err
		}
		return db.execBatches(ctx, tx, insertPrincipalsSQL, principals)
	})
	return stored, err
}

// summaryRows are the call_summaries and call_summary_principals rows of
// the summaries on known tools from oldest on.
func summaryRows(sums []callsummary.Summary, tokenID int64, instance string, known []string, oldest time.Time) (rows, principals [][]any) {
	for _, s := range sums {
		if !slices.Contains(known, s.Tool) || s.Minute.Before(oldest) {
			continue
		}
		row := []any{grainMinute, formatTime(s.Minute), s.Tool, tokenID, instance, s.Decision, s.Class, s.Status,
			s.Calls, s.Attempts, s.Retried, s.RetryAfter, s.CircuitOpens}
		for _, n := range s.Latency {
			row = append(row, n)
		}
		rows = append(rows, row)
		if s.Decision != callrecord.Allowed {
			continue
		}
		day := formatTime(s.Minute.Truncate(24 * time.Hour))
		for _, p := range s.Principals {
			principals = append(principals, []any{s.Tool, day, p})
		}
	}
	return rows, principals
}

// knownTools returns which of names (any order, repeats allowed) are tools
// of the project, and the distinct names sorted.
func knownTools(ctx context.Context, tx *sqlx.Tx, names []string) (known, distinct []string, err error) {
	distinct = slices.Compact(slices.Sorted(slices.Values(names)))
	q, args, err := sqlx.In(`SELECT name FROM tools WHERE name IN (?)`, distinct)
	if err != nil {
		return nil, nil, err
	}
	if err := tx.SelectContext(ctx, &known, q, args...); err != nil {
		return nil, nil, err
	}
	return known, distinct, nil
}
