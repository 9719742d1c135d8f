package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/audit"
)

// DashboardFacts is what the dashboard shows: counts only, plus the current
// bundle's summary and the newest audit entries. Every figure comes from a
// COUNT or a LIMIT query over an indexed column, so the landing page stays
// cheap however many tools a project has.
type DashboardFacts struct {
	Sources int
	// Tools counts live (not removed) tools by risk class; Exposed counts
	// the exposed ones among them by class. Classes with no tools are absent.
	Tools   map[string]int
	Exposed map[string]int
	// BySource counts the tools of each source by class and exposure,
	// by source name.
	BySource []SourceTools
	// LowerVerdicts counts live tools whose risk verdict is now below the
	// class in force with no admin override: new rules saw less risk, and
	// the class stays until a lower-class request is approved.
	LowerVerdicts int
	// Pending counts all pending change requests; PendingForUser those the
	// asking user could decide (everyone's but their own).
	Pending        int
	PendingForUser int
	// Bundle is the current version without payload or JWS; nil before the
	// first publish.
	Bundle *BundleRecord
	// Runtimes counts known instances; StaleRuntimes those behind the
	// current bundle or not seen since the staleness cut-off.
	Runtimes      int
	StaleRuntimes int
	Recent        []audit.Entry
}

// DashboardQuery says whose dashboard it is and when a runtime counts as
// stale.
type DashboardQuery struct {
	UserID int64
	// SeenSince: an instance last seen before this time is stale.
	SeenSince time.Time
	// RecentAudit is how many audit entries to return (newest first).
	RecentAudit int
}

// Dashboard gathers the dashboard's figures in one read transaction, so
// they are consistent with each other.
func (db *DB) Dashboard(ctx context.Context, q DashboardQuery) (*DashboardFacts, error) {
	f := &DashboardFacts{Tools: map[string]int{}, Exposed: map[string]int{}}
	err := db.readTx(ctx, "dashboard", func(tx *sqlx.Tx) error {
		if err := db.dashboardCounts(ctx, tx, f); err != nil {
			return err
		}
		var err error
		if f.PendingForUser, err = db.countPendingFor(ctx, tx, q.UserID); err != nil {
			return err
		}
		if err := dashboardBundle(ctx, tx, f); err != nil {
			return err
		}
		if err := dashboardRuntimes(ctx, tx, f, q.SeenSince); err != nil {
			return err
		}
		f.Recent, err = auditRows(ctx, tx, `SELECT * FROM audit_log ORDER BY id DESC LIMIT ?`, max(q.RecentAudit, 0))
		return err
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

func dashboardTools(ctx context.Context, tx *sqlx.Tx, f *DashboardFacts) error {
	var rows []struct {
		Class   string `db:"class"`
		Total   int    `db:"total"`
		Exposed int    `db:"exposed"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT t.class, count(*) AS total, coalesce(sum(p.exposed), 0) AS exposed
		FROM tools t LEFT JOIN tool_policies p ON p.tool_id = t.id
		WHERE t.removed_at IS NULL GROUP BY t.class`); err != nil {
		return err
	}
	for _, r := range rows {
		f.Tools[r.Class] = r.Total
		if r.Exposed > 0 {
			f.Exposed[r.Class] = r.Exposed
		}
	}
	return nil
}

func dashboardBundle(ctx context.Context, tx *sqlx.Tx, f *DashboardFacts) error {
	var row bundleRow
	err := tx.GetContext(ctx, &row, `SELECT `+bundleSummaryColumns+` FROM bundles ORDER BY version DESC LIMIT 1`)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	f.Bundle, err = row.record()
	return err
}

// dashboardRuntimes uses the same rule as the Runtimes page: an instance is
// stale when it runs an older version than the current bundle or has not
// fetched since seenSince. Times are fixed-width UTC text, so they compare
// as strings.
func dashboardRuntimes(ctx context.Context, tx *sqlx.Tx, f *DashboardFacts, seenSince time.Time) error {
	var current int64
	if f.Bundle != nil {
		current = f.Bundle.Version
	}
	var r struct {
		Total int `db:"total"`
		Stale int `db:"stale"`
	}
	if err := tx.GetContext(ctx, &r, `SELECT count(*) AS total,
			coalesce(sum(CASE WHEN version < ? OR last_seen < ? THEN 1 ELSE 0 END), 0) AS stale
		FROM runtime_instances`, current, formatTime(seenSince)); err != nil {
		return err
	}
	f.Runtimes, f.StaleRuntimes = r.Total, r.Stale
	return nil
}

// classRank orders a class column READ < WRITE < DESTRUCTIVE < PRIVILEGED.
func classRank(col string) string {
	return `(CASE ` + col + ` WHEN 'READ' THEN 1 WHEN 'WRITE' THEN 2 WHEN 'DESTRUCTIVE' THEN 3 ELSE 4 END)`
}
