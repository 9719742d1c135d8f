// Package pusher pushes published bundles to an OCI registry in the
// background, so publishing never waits for or fails because of the
// registry. The queue is the bundle_pushes table (store.EnqueuePushes):
// each version gets a row per registry target; a pusher claims a due row
// with a conditional UPDATE (two consoles on one database never push the
// same row at once, and pushing the same bytes twice would be harmless
// anyway), pushes it with oci.Client.Push (which never moves "latest"
// back), and records the outcome: pushed with its digest, or failed with
// the sanitised reason and the time of the next attempt (exponential
// backoff with jitter, 2 s doubling up to 5 min). Outcomes are logged, not
// audited: a push changes nothing a person decided, and the Bundles page
// shows the state of every version.
//
// After each drain, with a Signer, the pusher signs a timestamp (bundle
// doc.go, "Timestamp") naming the newest published version and its digest
// and pushes it under the tag "timestamp" (oci.Client.PushTimestamp): at
// once after a publish, and again every TimestampEvery while nothing
// changes, each valid for TimestampLifetime. It names the newest version
// even when that version's push failed: runtimes must learn that the
// registry serves old content (R14). Two consoles on one database both
// push timestamps, signed with the same key; either is correct.
package pusher

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/store"
)

// Defaults of Options.
const (
	DefaultPoll       = 5 * time.Second
	DefaultLease      = 2 * time.Minute
	DefaultBackoff    = 2 * time.Second
	DefaultMaxBackoff = 5 * time.Minute
)

// Options tune a Pusher; zero values take the defaults.
type Options struct {
	// Poll is how often the queue is checked for bundles another process
	// published (this one kicks the pusher at once).
	Poll time.Duration
	// Lease bounds one push; a claim older than this is taken over.
	Lease time.Duration
	// Backoff is the delay after the first failure, doubled per attempt up
	// to MaxBackoff, with jitter in [d/2, d].
	Backoff, MaxBackoff time.Duration
	// Signer signs the timestamp pushed beside the bundles (R14); nil
	// pushes none. TimestampEvery is how often it is re-signed while
	// nothing is published (DefaultTimestampEvery), TimestampLifetime how
	// long each is valid (3 × TimestampEvery).
	Signer            Signer
	TimestampEvery    time.Duration
	TimestampLifetime time.Duration
}

// Pusher pushes the bundles of one database to one registry target.
type Pusher struct {
	db     *store.DB
	client *oci.Client
	log    *slog.Logger
	opts   Options
	kick   chan struct{}
	// stamped is the last timestamp pushed; only Run's goroutine (or a
	// caller of Drain and Stamp that runs no Run) touches it.
	stamped stampState
}

// New prepares a pusher; Run starts it.
func New(db *store.DB, client *oci.Client, log *slog.Logger, opts Options) *Pusher {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.TimestampEvery <= 0 {
		opts.TimestampEvery = DefaultTimestampEvery
	}
	if opts.TimestampLifetime <= 0 {
		opts.TimestampLifetime = timestampLifetimes * opts.TimestampEvery
	}
	return &Pusher{db: db, client: client, log: log, opts: opts, kick: make(chan struct{}, 1)}
}

// Target is the registry location, as the Bundles page names it.
func (p *Pusher) Target() string { return p.client.Target().String() }

// Kick makes Run look at the queue now (after a publish or a "Retry push
// now"); it never blocks.
func (p *Pusher) Kick() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// Run drains the queue until ctx ends: at once, on every Kick, every Poll,
// and when the timestamp is due for re-signing. Failures are logged and
// retried later; Run only returns when ctx is done.
func (p *Pusher) Run(ctx context.Context) {
	for {
		if err := p.Drain(ctx); err != nil && ctx.Err() == nil {
			p.log.Warn("registry push queue", "target", p.Target(), "err", err)
		}
		wait := p.opts.Poll
		if d := p.nextStamp(p.db.Now()); d > 0 && d < wait {
			wait = d
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-p.kick:
			t.Stop()
		case <-t.C:
		}
	}
}

// Drain enqueues the versions published since the last look, pushes
// every push that is due, one attempt each, and then the timestamp when
// one is due (stamp). The newest version is read before anything is
// enqueued, so the timestamp never names a version whose push was not yet
// tried. A failed push is recorded (and logged), not returned: the error
// is only for the queue itself.
func (p *Pusher) Drain(ctx context.Context) error {
	target := p.Target()
	newest, err := p.newest(ctx)
	if err != nil {
		return err
	}
	if _, err := p.db.EnqueuePushes(ctx, target); err != nil {
		return fmt.Errorf("pusher: %w", err)
	}
	for ctx.Err() == nil {
		job, ok, err := p.db.ClaimPush(ctx, target, p.opts.Lease)
		if err != nil {
			return fmt.Errorf("pusher: %w", err)
		}
		if !ok {
			return p.stamp(ctx, newest)
		}
		if err := p.push(ctx, job); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// push runs one attempt of a claimed job and records its outcome.
func (p *Pusher) push(ctx context.Context, job store.BundlePush) error {
	rec, err := p.db.ServedBundle(ctx, job.Version)
	if err != nil {
		return fmt.Errorf("pusher: %w", err)
	}
	_, signed := registryForm(rec)
	pctx, cancel := context.WithTimeout(ctx, p.opts.Lease)
	res, perr := p.client.Push(pctx, oci.Artifact{Version: rec.Version, Signed: []byte(signed), IssuedAt: rec.IssuedAt})
	cancel()
	if perr != nil {
		reason := p.client.Sanitize(perr)
		next := p.db.Now().Add(p.backoff(job.Attempts))
		p.log.Warn("bundle push to the registry failed; retrying", "version", job.Version, "target", job.Target,
			"attempt", job.Attempts, "next_attempt_at", next.UTC().Format(time.RFC3339), "err", reason)
		if err := p.db.PushFailedAt(context.WithoutCancel(ctx), job, reason, next); err != nil {
			return fmt.Errorf("pusher: %w", err)
		}
		return nil
	}
	p.log.Info("bundle pushed to the registry", "version", job.Version, "target", job.Target,
		"digest", res.Digest, "latest_version", res.LatestVersion, "attempt", job.Attempts)
	if err := p.db.PushSucceeded(context.WithoutCancel(ctx), job, res.Digest); err != nil {
		return fmt.Errorf("pusher: %w", err)
	}
	return nil
}

// backoff is the wait after the attempts-th failure: Backoff doubled per
// attempt, at most MaxBackoff, uniform in [d/2, d].
func (p *Pusher) backoff(attempts int) time.Duration {
	d := p.opts.Backoff
	for i := 1; i < attempts && d < p.opts.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, p.opts.MaxBackoff)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// registryForm is the form of a version the registry holds, its ETag and
// signed bytes: the one every runtime reads, so for a toolgate.bundle/v2
// version its v1 form (bundle doc.go, "Rolling upgrade"). Runtimes pulling
// from a registry get the tools a v1 runtime can enforce, and none of the
// tools whose policy has groups or conditions.
func registryForm(rec *store.BundleRecord) (etag, signed string) {
	if d := rec.Downgrade; d != nil {
		return d.ETag, d.Signed
	}
	return rec.ETag, rec.Signed
}
