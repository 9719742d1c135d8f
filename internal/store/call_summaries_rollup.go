package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/callsummary"
)

// summedCounters is "CAST(SUM(c) AS BIGINT) AS c, …" over summaryCounters
// (PostgreSQL's SUM of a BIGINT is NUMERIC).
var summedCounters = func() string {
	out := make([]string, len(summaryCounters))
	for i, c := range summaryCounters {
		out[i] = "CAST(SUM(" + c + ") AS BIGINT) AS " + c
	}
	return strings.Join(out, ", ")
}()

// rollupHoursSQL recomputes every hour that still has its minutes; the
// hour's start is its minutes' bucket cut after the hour (the layout is
// fixed width).
var rollupHoursSQL = `INSERT INTO call_summaries (grain, bucket, ` + summaryKeyCols + `, ` + strings.Join(summaryCounters, ", ") + `)
	SELECT 'hour', substr(bucket, 1, 13) || ':00:00.000000000Z', ` + summaryKeyCols + `, ` + summedCounters + `
	FROM call_summaries WHERE grain = 'minute' AND bucket >= ?
	GROUP BY substr(bucket, 1, 13), ` + summaryKeyCols + summaryUpsert

// rollupDaysSQL recomputes every day whose hours may have changed, in
// total over every runtime.
var rollupDaysSQL = `INSERT INTO call_summaries (grain, bucket, ` + summaryKeyCols + `, ` + strings.Join(summaryCounters, ", ") + `)
	SELECT 'day', substr(bucket, 1, 10) || 'T00:00:00.000000000Z', tool, 0, '', decision, class, status, ` + summedCounters + `
	FROM call_summaries WHERE grain = 'hour' AND bucket >= ?
	GROUP BY substr(bucket, 1, 10), tool, decision, class, status` + summaryUpsert

// RollupCallSummaries rolls minutes up into hours and hours into days, and
// deletes what is past its retention: minutes before the hour of now −
// r.Minutes, hours before the day of now − r.Hours (principals too), days
// before the day of now − r.Days. Minutes and hours go by whole hours and
// days, and only after their hour or day was recomputed, so a rolled-up
// bucket always holds every call its finer buckets held.
func (db *DB) RollupCallSummaries(ctx context.Context, now time.Time, r callsummary.Retention) error {
	minutesFrom := now.UTC().Add(-r.Minutes).Truncate(time.Hour)
	hoursFrom := now.UTC().Add(-r.Hours).Truncate(24 * time.Hour)
	daysFrom := now.UTC().Add(-r.Days).Truncate(24 * time.Hour)
	return db.inTx(ctx, "roll up call summaries", func(tx *sqlx.Tx) error {
		steps := []struct {
			q   string
			arg time.Time
		}{
			{rollupHoursSQL, minutesFrom},
			{rollupDaysSQL, minutesFrom.Truncate(24 * time.Hour)},
			{`DELETE FROM call_summaries WHERE grain = 'minute' AND bucket < ?`, minutesFrom},
			{`DELETE FROM call_summaries WHERE grain = 'hour' AND bucket < ?`, hoursFrom},
			{`DELETE FROM call_summaries WHERE grain = 'day' AND bucket < ?`, daysFrom},
			{`DELETE FROM call_summary_principals WHERE day < ?`, hoursFrom},
		}
		for _, s := range steps {
			if _, err := tx.ExecContext(ctx, s.q, formatTime(s.arg)); err != nil {
				return fmt.Errorf("%.40s: %w", s.q, err)
			}
		}
		return nil
	})
}
