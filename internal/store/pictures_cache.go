package store

import (
	"context"
	"sync"
	"time"
)

// OutcomesSettle is how long after an hour ends its call outcomes are
// read once more and then kept: runtimes send records on their next
// fetch, so an hour this old has its records. A record arriving later
// still (a runtime offline for longer) is in the call records, and in the
// picture once the console restarts.
const OutcomesSettle = 15 * time.Minute

// outcomesCache keeps the counts of settled hours (ended OutcomesSettle
// ago or more), by hour: the dashboard then reads only the hours still
// filling, not a day of records on every load.
type outcomesCache struct {
	mu    sync.Mutex
	hours map[time.Time][]CallOutcomeCount
}

// CallOutcomesByHour counts the call records made in [since, until) (both
// on the hour) by hour, decision and class, oldest hour first: settled
// hours from the cache, read once; the others from the called_at index.
func (db *DB) CallOutcomesByHour(ctx context.Context, since, until time.Time) ([]CallOutcomeCount, error) {
	since, until = since.UTC().Truncate(time.Hour), until.UTC().Truncate(time.Hour)
	settled := db.Now().UTC().Add(-OutcomesSettle).Truncate(time.Hour) // the hours before it are settled
	if until.Before(settled) {
		settled = until
	}
	from := since
	if settled.After(from) {
		from = settled
	}
	c := &db.outcomes
	c.mu.Lock()
	if c.hours == nil {
		c.hours = map[time.Time][]CallOutcomeCount{}
	}
	missing := settled
	for h := since; h.Before(settled); h = h.Add(time.Hour) {
		if _, ok := c.hours[h]; !ok {
			missing = h
			break
		}
	}
	c.mu.Unlock()
	if missing.Before(settled) {
		read, err := db.readCallOutcomes(ctx, missing, settled)
		if err != nil {
			return nil, err
		}
		c.keep(missing, settled, read, since)
	}
	live, err := db.readCallOutcomes(ctx, from, until)
	if err != nil {
		return nil, err
	}
	var out []CallOutcomeCount
	c.mu.Lock()
	for h := since; h.Before(settled); h = h.Add(time.Hour) {
		out = append(out, c.hours[h]...)
	}
	c.mu.Unlock()
	return append(out, live...), nil
}

// keep stores the counts read for the settled hours [from, to), empty
// hours included, and forgets hours before oldest.
func (c *outcomesCache) keep(from, to time.Time, read []CallOutcomeCount, oldest time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for h := from; h.Before(to); h = h.Add(time.Hour) {
		c.hours[h] = nil
	}
	for _, r := range read {
		c.hours[r.Hour] = append(c.hours[r.Hour], r)
	}
	for h := range c.hours {
		if h.Before(oldest) {
			delete(c.hours, h)
		}
	}
}
