package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/callsummary"
)

// SummaryWindow is a time window read from call summaries: hours from
// Since until ByMinute, minutes from ByMinute (or Since, when later) on.
type SummaryWindow struct {
	Since, ByMinute time.Time
}

// where is the window's condition and arguments.
func (w SummaryWindow) where() (string, []any) {
	minutes := w.Since
	if w.ByMinute.After(minutes) {
		minutes = w.ByMinute
	}
	return `((grain = 'hour' AND bucket >= ? AND bucket < ?) OR (grain = 'minute' AND bucket >= ?))`,
		[]any{formatTime(w.Since), formatTime(w.ByMinute), formatTime(minutes)}
}

// CallOutcomes sums a tool's call summaries over a window, over every
// runtime, one Counts per decision, class and status.
func (db *DB) CallOutcomes(ctx context.Context, tool string, w SummaryWindow) ([]callsummary.Counts, error) {
	byHour, err := db.callOutcomes(ctx, tool, w, `''`)
	return byHour[""], err
}

// ToolOutcomesByHour is CallOutcomes for each hour of the window, keyed by
// the hour's start (UTC); an hour without calls has no key.
func (db *DB) ToolOutcomesByHour(ctx context.Context, tool string, w SummaryWindow) (map[time.Time][]callsummary.Counts, error) {
	// Buckets are fixed-width UTC text: the first 13 characters are the
	// hour ("2026-12-02T14"), for minute and hour rows alike.
	byHour, err := db.callOutcomes(ctx, tool, w, `SUBSTR(bucket, 1, 13)`)
	if err != nil {
		return nil, err
	}
	out := make(map[time.Time][]callsummary.Counts, len(byHour))
	for h, counts := range byHour {
		at, err := time.Parse("2006-01-02T15", h)
		if err != nil {
			return nil, fmt.Errorf("read call outcomes: bucket %q: %w", h, err)
		}
		out[at] = counts
	}
	return out, nil
}

// callOutcomes sums a tool's summaries over w grouped by the SQL
// expression key (and decision, class, status).
func (db *DB) callOutcomes(ctx context.Context, tool string, w SummaryWindow, key string) (map[string][]callsummary.Counts, error) {
	cond, args := w.where()
	out := map[string][]callsummary.Counts{}
	err := db.readTx(ctx, "read call outcomes", func(tx *sqlx.Tx) error {
		rows, err := tx.QueryxContext(ctx, `SELECT `+key+` AS k, decision, class, status, `+summedCounters+`
			FROM call_summaries WHERE tool = ? AND `+cond+`
			GROUP BY k, decision, class, status ORDER BY k, decision, class, status`, append([]any{tool}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var c callsummary.Counts
			dest := []any{&k, &c.Decision, &c.Class, &c.Status, &c.Calls, &c.Attempts, &c.Retried, &c.RetryAfter, &c.CircuitOpens}
			for i := range c.Latency {
				dest = append(dest, &c.Latency[i])
			}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			out[k] = append(out[k], c)
		}
		return rows.Err()
	})
	return out, err
}

// CallReach is who called a tool in a window: its allowed calls, the
// runtime instances that made them and the distinct principals they were
// for (callsummary.MaxPrincipals a minute at most are named, so a tool
// called by more in one minute has at least that many).
type CallReach struct {
	Calls      int64
	Runtimes   int
	Principals int
}

// CallReaches returns the reach of each of tools that had allowed calls
// in the window; principals are counted by whole days from Since's day.
func (db *DB) CallReaches(ctx context.Context, tools []string, w SummaryWindow) (map[string]CallReach, error) {
	out := map[string]CallReach{}
	if len(tools) == 0 {
		return out, nil
	}
	cond, wargs := w.where()
	type count struct {
		Tool string `db:"tool"`
		N    int64  `db:"n"`
	}
	err := db.readTx(ctx, "read call reach", func(tx *sqlx.Tx) error {
		queries := []struct {
			sql  string
			args []any
			set  func(r *CallReach, n int64)
		}{
			{`SELECT tool, CAST(SUM(calls) AS BIGINT) AS n FROM call_summaries
				WHERE tool IN (?) AND decision = ? AND ` + cond + ` GROUP BY tool`,
				append([]any{tools, callrecord.Allowed}, wargs...), func(r *CallReach, n int64) { r.Calls = n }},
			{`SELECT tool, COUNT(*) AS n FROM (SELECT DISTINCT tool, token_id, instance FROM call_summaries
				WHERE tool IN (?) AND decision = ? AND ` + cond + `) AS r GROUP BY tool`,
				append([]any{tools, callrecord.Allowed}, wargs...), func(r *CallReach, n int64) { r.Runtimes = int(n) }},
			{`SELECT tool, COUNT(DISTINCT principal) AS n FROM call_summary_principals WHERE tool IN (?) AND day >= ? GROUP BY tool`,
				[]any{tools, formatTime(w.Since.UTC().Truncate(24 * time.Hour))}, func(r *CallReach, n int64) { r.Principals = int(n) }},
		}
		for _, q := range queries {
			sql, args, err := sqlx.In(q.sql, q.args...)
			if err != nil {
				return err
			}
			var counts []count
			if err := tx.SelectContext(ctx, &counts, sql, args...); err != nil {
				return err
			}
			for _, c := range counts {
				r := out[c.Tool]
				q.set(&r, c.N)
				out[c.Tool] = r
			}
		}
		return nil
	})
	return out, err
}
