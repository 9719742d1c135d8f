package store

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/jmoiron/sqlx"
)

// The queries behind the console's pictures (README "Pictures"). Each is
// bounded: by the index it reads (call_records_called_at) and a time
// window, by the distinct values it groups by, or by the publish
// generation that caches it with the dashboard's other counts.

// SourceTools counts one source's live tools by risk class, and the
// exposed ones among them.
type SourceTools struct {
	Source  string
	Tools   map[string]int
	Exposed map[string]int
}

// dashboardSources reads the tools of every source by class and exposure,
// by source name. It runs with the dashboard's other counts and is cached
// with them (countsCache): tools, policies and sources bump the generation.
func dashboardSources(ctx context.Context, tx *sqlx.Tx, f *DashboardFacts) error {
	var rows []struct {
		Source  string `db:"source"`
		Class   string `db:"class"`
		Total   int    `db:"total"`
		Exposed int    `db:"exposed"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT s.name AS source, t.class, count(*) AS total,
			coalesce(sum(p.exposed), 0) AS exposed
		FROM tools t JOIN sources s ON s.id = t.source_id LEFT JOIN tool_policies p ON p.tool_id = t.id
		WHERE t.removed_at IS NULL GROUP BY s.name, t.class ORDER BY s.name`); err != nil {
		return fmt.Errorf("tools by source: %w", err)
	}
	f.BySource = nil
	for _, r := range rows {
		if n := len(f.BySource); n == 0 || f.BySource[n-1].Source != r.Source {
			f.BySource = append(f.BySource, SourceTools{Source: r.Source, Tools: map[string]int{}, Exposed: map[string]int{}})
		}
		s := &f.BySource[len(f.BySource)-1]
		s.Tools[r.Class] = r.Total
		s.Exposed[r.Class] = r.Exposed
	}
	return nil
}

// cloneSources copies cached counts for one reader, as dashboardCounts
// copies the others: a caller may change what it gets.
func cloneSources(in []SourceTools) []SourceTools {
	out := make([]SourceTools, len(in))
	for i, s := range in {
		out[i] = SourceTools{Source: s.Source, Tools: maps.Clone(s.Tools), Exposed: maps.Clone(s.Exposed)}
	}
	return out
}

// CallOutcomeCount is how many calls of one decision and class started
// in one hour.
type CallOutcomeCount struct {
	Hour            time.Time // UTC, on the hour
	Decision, Class string
	Calls           int
}

// readCallOutcomes counts the call records made in [since, until) by
// hour, decision and class, oldest hour first. It reads the called_at
// index over the window only; times are fixed-width UTC text, so the
// first 13 characters are the hour ("2026-12-02T14").
func (db *DB) readCallOutcomes(ctx context.Context, since, until time.Time) ([]CallOutcomeCount, error) {
	var out []CallOutcomeCount
	err := db.readTx(ctx, "call outcomes by hour", func(tx *sqlx.Tx) error {
		var rows []struct {
			Hour     string `db:"hour"`
			Decision string `db:"decision"`
			Class    string `db:"class"`
			Calls    int    `db:"calls"`
		}
		if err := tx.SelectContext(ctx, &rows, `SELECT substr(called_at, 1, 13) AS hour, decision, class, count(*) AS calls
			FROM call_records WHERE called_at >= ? AND called_at < ?
			GROUP BY substr(called_at, 1, 13), decision, class ORDER BY hour, decision, class`,
			formatTime(since), formatTime(until)); err != nil {
			return err
		}
		for _, r := range rows {
			h, err := time.Parse("2006-01-02T15", r.Hour)
			if err != nil {
				return fmt.Errorf("parse stored hour %q: %w", r.Hour, err)
			}
			out = append(out, CallOutcomeCount{Hour: h, Decision: r.Decision, Class: r.Class, Calls: r.Calls})
		}
		return nil
	})
	return out, err
}

// FleetVersion counts the runtime instances that last said they run one
// bundle version, and how many of them were not seen since the cut-off.
type FleetVersion struct {
	Version   int64
	Instances int
	Quiet     int
}

// RuntimeFleet counts every instance by the version it runs, newest
// version first; an instance last seen before seenSince is quiet.
func (db *DB) RuntimeFleet(ctx context.Context, seenSince time.Time) ([]FleetVersion, error) {
	var out []FleetVersion
	err := db.readTx(ctx, "runtime fleet", func(tx *sqlx.Tx) error {
		var rows []struct {
			Version   int64 `db:"version"`
			Instances int   `db:"instances"`
			Quiet     int   `db:"quiet"`
		}
		if err := tx.SelectContext(ctx, &rows, `SELECT version, count(*) AS instances,
				coalesce(sum(CASE WHEN last_seen < ? THEN 1 ELSE 0 END), 0) AS quiet
			FROM runtime_instances GROUP BY version ORDER BY version DESC`, formatTime(seenSince)); err != nil {
			return err
		}
		for _, r := range rows {
			out = append(out, FleetVersion(r))
		}
		return nil
	})
	return out, err
}
