package runtime

import (
	"fmt"
	"time"
)

// freshness is what the staleness and expiry rules (R11) leave of the
// bundle in force.
type freshness int

const (
	freshNone    freshness = iota // no bundle
	freshOK                       // every tool served
	freshStale                    // DESTRUCTIVE and PRIVILEGED tools withdrawn
	freshExpired                  // every tool withdrawn
)

// freshnessAt is the state of s at now.
func (r *Runtime) freshnessAt(s *snapshot, now time.Time) freshness {
	switch {
	case s == nil:
		return freshNone
	case !now.Before(s.bundle.ExpiresAt):
		return freshExpired
	case r.staleAt(now):
		return freshStale
	}
	return freshOK
}

// staleAt reports whether the bundle in force is stale at now: unconfirmed
// for longer than MaxStaleness, or older than a registry's timestamp names.
func (r *Runtime) staleAt(now time.Time) bool {
	return now.Sub(time.Unix(0, r.confirmedAt.Load())) > r.opts.MaxStaleness || r.behind.Load() != 0
}

// whyStale says why the bundle in force s is stale (staleAt is true).
func (r *Runtime) whyStale(s *snapshot, now time.Time) string {
	if b := r.behind.Load(); b != 0 {
		return fmt.Sprintf("the registry serves bundle v%d but the console's signed timestamp names v%d", s.bundle.Version, b)
	}
	return fmt.Sprintf("bundle v%d was last confirmed %s ago, longer than the maximum staleness %s",
		s.bundle.Version, now.Sub(time.Unix(0, r.confirmedAt.Load())).Round(time.Second), r.opts.MaxStaleness)
}

// freshnessReport is the fleet report's part about freshness: "" while
// fresh, else what is withdrawn and why.
func (r *Runtime) freshnessReport() string {
	s, now := r.snap.Load(), r.opts.Now()
	switch r.freshnessAt(s, now) {
	case freshExpired:
		return fmt.Sprintf("expired: bundle v%d expired at %s, every tool withdrawn", s.bundle.Version,
			s.bundle.ExpiresAt.UTC().Format(time.RFC3339))
	case freshStale:
		why := r.whyStale(s, now)
		if r.behind.Load() == 0 {
			// Not the age: the report stays the same from poll to poll,
			// so the console need not record each one.
			why = fmt.Sprintf("bundle v%d unconfirmed since %s, longer than the maximum staleness %s", s.bundle.Version,
				time.Unix(0, r.confirmedAt.Load()).UTC().Format(time.RFC3339), r.opts.MaxStaleness)
		}
		return "stale: " + why + "; DESTRUCTIVE and PRIVILEGED tools withdrawn"
	}
	return ""
}

// noteFreshness logs each change of freshness once: turning stale or
// expired withdraws tools, which an operator must hear of. Callers hold
// listMu (reconcile).
func (r *Runtime) noteFreshness(s *snapshot, now time.Time) {
	f := r.freshnessAt(s, now)
	if f == r.fresh {
		return
	}
	was := r.fresh
	r.fresh = f
	switch f {
	case freshExpired:
		r.log.Error("bundle expired: every tool is withdrawn until a newer bundle arrives; publish again in the console",
			"version", s.bundle.Version, "expires_at", s.bundle.ExpiresAt.UTC().Format(time.RFC3339))
	case freshStale:
		r.log.Warn("bundle stale: DESTRUCTIVE and PRIVILEGED tools are withdrawn until the bundle is confirmed again",
			"version", s.bundle.Version, "reason", r.whyStale(s, now))
	case freshOK:
		if was == freshStale || was == freshExpired {
			r.log.Info("bundle fresh again: every tool is served", "version", s.bundle.Version)
		}
	}
}
