package store

import (
	"context"
	"maps"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"
)

// countsCache keeps the figures that cost a scan of the tools table (the
// dashboard's counts by class, the tools list's totals) for one publish
// generation. Every write to what they count (sources, tools, policies,
// change requests) bumps the generation in the writing transaction, in
// any process (PublishGeneration), and a reader compares the generation it
// reads in its own transaction, so a cached figure is never older than the
// snapshot it is shown with.
type countsCache struct {
	mu        sync.Mutex
	gen       int64
	dashboard *DashboardFacts // only the fields readDashboardCounts sets
	totals    map[string]int
}

// maxCachedTotals bounds the tools-list totals kept per generation
// (distinct filter combinations); past it the map starts again.
const maxCachedTotals = 256

// at empties the cache when the generation moved past what it holds.
// The caller holds mu.
func (c *countsCache) at(gen int64) {
	if c.gen != gen || c.totals == nil {
		c.gen, c.dashboard, c.totals = gen, nil, map[string]int{}
	}
}

// dashboardCounts reads the generation and the counts in tx, from the
// cache when the generation has not moved.
func (db *DB) dashboardCounts(ctx context.Context, tx *sqlx.Tx, f *DashboardFacts) error {
	gen, err := publishGeneration(ctx, tx)
	if err != nil {
		return err
	}
	c := &db.counts
	c.mu.Lock()
	c.at(gen)
	d := c.dashboard
	c.mu.Unlock()
	if d == nil {
		if d, err = readDashboardCounts(ctx, tx); err != nil {
			return err
		}
		c.mu.Lock()
		if c.gen == gen {
			c.dashboard = d
		}
		c.mu.Unlock()
	}
	f.Sources, f.LowerVerdicts, f.Pending = d.Sources, d.LowerVerdicts, d.Pending
	f.Tools, f.Exposed = maps.Clone(d.Tools), maps.Clone(d.Exposed)
	f.BySource = cloneSources(d.BySource)
	return nil
}

// readDashboardCounts reads the dashboard's figures that depend only on
// the publishable state: sources, tools and exposed tools by class, lower
// verdicts, pending requests.
func readDashboardCounts(ctx context.Context, tx *sqlx.Tx) (*DashboardFacts, error) {
	f := &DashboardFacts{Tools: map[string]int{}, Exposed: map[string]int{}}
	if err := tx.GetContext(ctx, &f.Sources, `SELECT count(*) FROM sources`); err != nil {
		return nil, err
	}
	if err := dashboardTools(ctx, tx, f); err != nil {
		return nil, err
	}
	if err := dashboardSources(ctx, tx, f); err != nil {
		return nil, err
	}
	if err := tx.GetContext(ctx, &f.LowerVerdicts, `SELECT count(*) FROM tools WHERE removed_at IS NULL
			AND risk_override_by = '' AND `+classRank("detected_class")+` < `+classRank("class")); err != nil {
		return nil, err
	}
	if err := tx.GetContext(ctx, &f.Pending, `SELECT count(*) FROM change_requests WHERE status = 'pending'`); err != nil {
		return nil, err
	}
	return f, nil
}

// toolsTotal counts the tools matching q's filter in tx, from the cache
// when the generation has not moved. A tag filter is not cached: tags are
// not among what bumps the generation.
func (db *DB) toolsTotal(ctx context.Context, tx *sqlx.Tx, q ToolQuery, where string, args []any) (int, error) {
	count := func() (int, error) {
		var n int
		err := tx.GetContext(ctx, &n, `SELECT count(*)`+toolFrom+where, args...)
		return n, err
	}
	if q.Tag != "" {
		return count()
	}
	gen, err := publishGeneration(ctx, tx)
	if err != nil {
		return 0, err
	}
	key := totalsKey(q)
	c := &db.counts
	c.mu.Lock()
	c.at(gen)
	n, ok := c.totals[key]
	c.mu.Unlock()
	if ok {
		return n, nil
	}
	if n, err = count(); err != nil {
		return 0, err
	}
	c.mu.Lock()
	if c.gen == gen {
		if len(c.totals) >= maxCachedTotals {
			clear(c.totals)
		}
		c.totals[key] = n
	}
	c.mu.Unlock()
	return n, nil
}

// totalsKey is the part of q the filter is made from.
func totalsKey(q ToolQuery) string {
	removed := "0"
	if q.Removed {
		removed = "1"
	}
	return strings.Join([]string{removed, q.Source, strings.ToUpper(q.Class), strings.ToUpper(q.Method), q.Exposure, q.Text}, "\x00")
}
