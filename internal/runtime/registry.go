package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/oci"
)

// ErrRegistryBehind: the registry's bundle is older than the one the
// console's signed timestamp names, and the registry does not serve that
// one either: the registry serves old content (R14).
var ErrRegistryBehind = errors.New("the registry serves an older bundle than the console's signed timestamp names")

// stampHeld is the last timestamp pulled from the registry and verified.
// Guarded by syncMu.
type stampHeld struct {
	digest string // manifest digest, to pull conditionally
	stamp  *bundle.Timestamp
	// lastErr is the text of the last timestamp problem logged, so that a
	// registry without timestamps is logged once, not on every poll.
	lastErr string
}

// syncRegistry is Sync for a registry source, in TUF's order: the
// timestamp first, then the "latest" tag (one HEAD each while unchanged),
// and when latest is older than the timestamp names, the named version's
// own tag. Only a verified, unexpired timestamp naming the bundle in force
// confirms it (R14); the registry answering proves nothing. latest is
// resolved even when the timestamp names the bundle in force: the pusher
// moves latest before it pushes the new timestamp, and a poll in between
// would otherwise wait a whole poll interval for the new bundle.
func (r *Runtime) syncRegistry(ctx context.Context, src *registrySource, keys bundle.KeySet, cur *snapshot) error {
	src.reportToConsole(ctx, cur, r.refusalReport())
	ts := r.pullStamp(ctx, src, keys)
	err := r.pullBundle(ctx, src, oci.TagLatest, keys)
	if cur = r.snap.Load(); ts != nil && (cur == nil || ts.Version > cur.bundle.Version) {
		if e := r.pullBundle(ctx, src, oci.Tag(ts.Version), keys); e != nil && !errors.Is(e, oci.ErrNotFound) {
			err = errors.Join(err, e)
		}
		cur = r.snap.Load()
	}
	if cur == nil {
		return err
	}
	return errors.Join(err, r.judgeStamp(ts, cur))
}

// pullBundle pulls tag and accepts what it holds when it is another bundle
// than the one in force. An unchanged tag changes nothing: it is not a
// confirmation.
func (r *Runtime) pullBundle(ctx context.Context, src *registrySource, tag string, keys bundle.KeySet) error {
	cur := r.snap.Load()
	etag := ""
	if cur != nil && strings.HasPrefix(cur.etag, "sha256:") && tag == oci.TagLatest {
		etag = cur.etag // a console ETag from before a switch of source: fetch in full
	}
	p, err := src.client.Pull(ctx, tag, etag)
	if err != nil {
		r.metrics.fetch("error")
		return fmt.Errorf("sync: fetch bundle from %s: %w", src.client.Target(), err)
	}
	if p.NotModified || (cur != nil && signedIDOf(p.Signed) == cur.signed) {
		r.metrics.fetch("not_modified")
		return nil
	}
	return r.accept(p.Signed, p.Digest, keys, cur)
}

// pullStamp pulls and verifies the registry's timestamp; nil when there
// is none, it cannot be fetched, or it is refused or expired (logged when
// the problem is new, and counted).
func (r *Runtime) pullStamp(ctx context.Context, src *registrySource, keys bundle.KeySet) *bundle.Timestamp {
	now := r.opts.Now()
	p, err := src.client.PullTimestamp(ctx, r.stamp.digest)
	switch {
	case err != nil:
		r.stampProblem(fmt.Errorf("fetch timestamp: %w", err), "")
		return nil
	case p.NotModified:
		if r.stamp.stamp != nil && now.Before(r.stamp.stamp.ExpiresAt) {
			return r.stamp.stamp
		}
		if r.stamp.stamp != nil {
			r.stampProblem(fmt.Errorf("verify timestamp: %w: expired at %s; the registry serves no newer one",
				bundle.ErrTimestampExpired, r.stamp.stamp.ExpiresAt.UTC().Format(time.RFC3339)), "timestamp_expired")
		}
		return nil
	}
	ts, err := bundle.VerifyTimestamp(p.Signed, keys, now)
	if err != nil {
		r.stamp = stampHeld{lastErr: r.stamp.lastErr}
		r.stampProblem(err, stampRefusalReason(err))
		return nil
	}
	r.stamp = stampHeld{digest: p.Digest, stamp: ts}
	return ts
}

// stampProblem logs a timestamp problem when it differs from the last one
// and counts refusals by reason ("" for a failed fetch).
func (r *Runtime) stampProblem(err error, reason string) {
	if reason != "" {
		r.metrics.refusals.WithLabelValues(reason).Inc()
	}
	if text := err.Error(); text != r.stamp.lastErr {
		r.stamp.lastErr = text
		r.log.Warn("no valid registry timestamp: the bundle in force is not confirmed; past the maximum staleness DESTRUCTIVE and PRIVILEGED tools are withdrawn",
			"err", err, "max_staleness", r.opts.MaxStaleness)
	}
}

// judgeStamp applies a verified timestamp to the bundle in force: naming
// it confirms it as of the timestamp's issue time (never later than now,
// never moving the confirmation back); naming a newer version marks the
// runtime behind, stale at once; naming an older one confirms nothing.
func (r *Runtime) judgeStamp(ts *bundle.Timestamp, cur *snapshot) error {
	if b := r.behind.Load(); b != 0 && cur.bundle.Version > b {
		r.behind.Store(0) // a newer version than the one named has arrived
		r.reconcile()
	}
	if ts == nil {
		return nil
	}
	if ts.Names(cur.bundle.Version, cur.digest) {
		r.stamp.lastErr = ""
		if was := r.behind.Swap(0); was != 0 {
			r.log.Info("the registry serves the bundle its timestamp names again", "version", cur.bundle.Version)
		}
		at := ts.IssuedAt
		if now := r.opts.Now(); at.After(now) {
			at = now // within the clock skew Verify allows
		}
		if at.UnixNano() > r.confirmedAt.Load() {
			r.confirmedAt.Store(at.UnixNano())
			if err := r.disk.saveMeta(bundleMeta{ETag: cur.etag, Version: cur.bundle.Version, ConfirmedAt: at}); err != nil {
				return fmt.Errorf("sync: %w", err)
			}
		}
		r.reconcile()
		return nil
	}
	if ts.Version < cur.bundle.Version {
		return nil // the console pushes the bundle first, then its timestamp
	}
	// A newer version, or the same version with other bytes.
	if r.behind.Swap(ts.Version) != ts.Version {
		r.log.Warn("the registry serves old content: its bundle is older than the console's signed timestamp names; DESTRUCTIVE and PRIVILEGED tools are withdrawn",
			"serving", cur.bundle.Version, "timestamp_version", ts.Version, "timestamp_issued_at", ts.IssuedAt)
	}
	r.reconcile()
	return fmt.Errorf("sync: %w: serving v%d, the timestamp of %s names v%d", ErrRegistryBehind,
		cur.bundle.Version, ts.IssuedAt.UTC().Format(time.RFC3339), ts.Version)
}

// stampRefusalReason is the refusals metric label of a refused timestamp.
func stampRefusalReason(err error) string {
	for _, e := range []struct {
		err    error
		reason string
	}{{bundle.ErrTimestampSchema, "timestamp_schema"}, {bundle.ErrTimestampExpired, "timestamp_expired"},
		{bundle.ErrTimestampNotYetValid, "timestamp_not_yet_valid"}} {
		if errors.Is(err, e.err) {
			return e.reason
		}
	}
	for _, rr := range refusalReasons {
		if errors.Is(err, rr.err) {
			return "timestamp_" + rr.reason
		}
	}
	return "timestamp_other"
}
