package pusher

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
)

// Defaults of the timestamp options.
const (
	DefaultTimestampEvery = time.Minute
	// timestampLifetimes is the default lifetime in re-signing intervals:
	// two pushes may fail before runtimes hold an expired timestamp.
	timestampLifetimes = 3
)

// Signer yields the key that signs now (keyring.Keyring does).
type Signer interface {
	Active(ctx context.Context) (bundle.SigningKey, error)
}

// stampState is what the pusher last pushed as a timestamp.
type stampState struct {
	version int64
	at      time.Time
}

// stampDue reports whether a timestamp should be signed now: never one
// pushed, a newer version published since, or a re-signing interval passed.
func (p *Pusher) stampDue(latest int64, now time.Time) bool {
	return p.stamped.at.IsZero() || latest != p.stamped.version || now.Sub(p.stamped.at) >= p.opts.TimestampEvery
}

// newest is the summary of the newest published bundle, nil before the
// first publish or without a signer (no timestamps to sign).
func (p *Pusher) newest(ctx context.Context) (*store.BundleRecord, error) {
	if p.opts.Signer == nil {
		return nil, nil
	}
	latest, err := p.db.LatestBundleSummary(ctx)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pusher: timestamp: %w", err)
	}
	// The timestamp names the bytes the registry holds (registryForm).
	d, err := p.db.V1Form(ctx, latest.Version)
	if err != nil {
		return nil, fmt.Errorf("pusher: timestamp: %w", err)
	}
	latest.Downgrade = d
	return latest, nil
}

// stamp signs a timestamp naming latest, the newest published bundle, and
// pushes it when one is due (stampDue). It names that version whether its
// push succeeded or not: a registry that lacks it serves old content, and
// runtimes must learn that (R14). A failed push is logged and tried again
// at the next round.
func (p *Pusher) stamp(ctx context.Context, latest *store.BundleRecord) error {
	if latest == nil {
		return nil
	}
	now := p.db.Now()
	if !p.stampDue(latest.Version, now) {
		return nil
	}
	key, err := p.opts.Signer.Active(ctx)
	if err != nil {
		return fmt.Errorf("pusher: timestamp: %w", err)
	}
	// The ETag is the quoted hex SHA-256 of the signed bundle: its digest.
	etag, _ := registryForm(latest)
	digest := "sha256:" + strings.Trim(etag, `"`)
	signed, err := bundle.SignTimestamp(latest.Version, digest, now, p.opts.TimestampLifetime, key)
	if err != nil {
		return fmt.Errorf("pusher: timestamp: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, p.opts.Lease)
	d, err := p.client.PushTimestamp(pctx, latest.Version, signed, now)
	cancel()
	if err != nil {
		p.log.Warn("timestamp push to the registry failed; retrying at the next round", "version", latest.Version,
			"target", p.Target(), "err", p.client.Sanitize(err))
		return nil
	}
	if latest.Version != p.stamped.version {
		p.log.Info("timestamp pushed to the registry", "version", latest.Version, "target", p.Target(), "digest", d,
			"expires_at", now.Add(p.opts.TimestampLifetime).UTC().Format(time.RFC3339))
	}
	p.stamped = stampState{version: latest.Version, at: now}
	return nil
}

// nextStamp is how long until the next timestamp is due (0 without a signer
// or before the first).
func (p *Pusher) nextStamp(now time.Time) time.Duration {
	if p.opts.Signer == nil || p.stamped.at.IsZero() {
		return 0
	}
	return max(p.stamped.at.Add(p.opts.TimestampEvery).Sub(now), 0)
}
