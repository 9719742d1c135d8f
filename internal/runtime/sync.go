package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
)

// ErrNoTrustedKeys: neither pinned keys, nor keys trusted earlier, nor
// permission to trust the console's keys on first use.
var ErrNoTrustedKeys = errors.New("no trusted keys: pin the console's keys (toolgate keys export) or allow --trust-on-first-use")

// snapshot is one accepted bundle with everything compiled from it. It is
// never modified after it is published with Runtime.snap.
type snapshot struct {
	bundle *bundle.Bundle
	signed signedID // a refetch of the same signed bytes confirms
	etag   string
	// digest is bundle.BundleDigest of the signed bytes, what a registry
	// timestamp names; computed only for a registry source.
	digest string
	exec   *executor.Executor
	tools  map[string]*bundle.Tool
	// withheld are the bundle's tools this runtime does not serve, with the
	// reason: the executor cannot compile them, or MCP refuses their
	// definition. listings holds the MCP definitions of the others.
	withheld map[string]string
	listings map[string]*listing
}

// Status is what the runtime currently serves.
type Status struct {
	// Version of the bundle in force, 0 when there is none.
	Version     int64
	ETag        string
	IssuedAt    time.Time
	ExpiresAt   time.Time
	ConfirmedAt time.Time // last time the console confirmed the bundle is current
	// Stale: ConfirmedAt is older than MaxStaleness, or the registry's
	// timestamp names a newer version (Behind); DESTRUCTIVE and
	// PRIVILEGED tools are refused. Expired: every tool is refused.
	Stale, Expired bool
	Behind         int64
	Tools          int
}

// Status reports the bundle in force and its freshness.
func (r *Runtime) Status() Status {
	s := r.snap.Load()
	if s == nil {
		return Status{}
	}
	now := r.opts.Now()
	confirmed := time.Unix(0, r.confirmedAt.Load())
	return Status{Version: s.bundle.Version, ETag: s.etag, IssuedAt: s.bundle.IssuedAt, ExpiresAt: s.bundle.ExpiresAt,
		ConfirmedAt: confirmed, Stale: r.staleAt(now), Behind: r.behind.Load(),
		Expired: !now.Before(s.bundle.ExpiresAt), Tools: len(s.tools)}
}

// loadKeys settles which keys bundles must be signed with: pinned keys win;
// otherwise keys trusted on an earlier first use; otherwise, with
// TrustOnFirstUse, they are fetched at the first Sync.
func (r *Runtime) loadKeys() error {
	if r.opts.TrustedKeys != nil {
		if len(r.opts.TrustedKeys.Keys) == 0 {
			return errors.New("the pinned key set is empty")
		}
		r.keys.Store(r.opts.TrustedKeys)
		return nil
	}
	keys, ok, err := r.disk.loadTrustedKeys()
	if err != nil {
		return err
	}
	if ok {
		r.keys.Store(&keys)
		return nil
	}
	if !r.opts.TrustOnFirstUse {
		return ErrNoTrustedKeys
	}
	return nil
}

// trustOnFirstUse fetches and persists the console's keys, once.
func (r *Runtime) trustOnFirstUse(ctx context.Context) (*bundle.KeySet, error) {
	if k := r.keys.Load(); k != nil {
		return k, nil
	}
	if r.console == nil {
		return nil, ErrNoTrustedKeys
	}
	keys, err := r.console.fetchKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("trust on first use: %w", err)
	}
	if err := r.disk.saveTrustedKeys(keys); err != nil {
		return nil, fmt.Errorf("trust on first use: %w", err)
	}
	r.keys.Store(&keys)
	r.log.Warn("trusting the console's signing keys on first use; they are now pinned",
		"kids", keys.KeyIDs(), "file", r.disk.path(trustedKeysFile))
	return &keys, nil
}

// loadPersisted serves the last good bundle from disk, verified again (the
// file could have been edited or the keys changed); an expired or refused
// file is logged and ignored.
func (r *Runtime) loadPersisted() error {
	signed, meta, ok, err := r.disk.loadBundle()
	if err != nil || !ok {
		return err
	}
	keys := r.keys.Load()
	if keys == nil {
		r.log.Warn("a persisted bundle exists but no keys are trusted yet; waiting for the console")
		return nil
	}
	now := r.opts.Now()
	b, _, err := bundle.Verify(signed, *keys, bundle.VerifyOptions{Now: now, Memo: &r.memo, Schemas: r.opts.BundleSchemas})
	if err != nil {
		r.log.Warn("persisted bundle refused; starting without a bundle", "err", err)
		return nil
	}
	confirmed := meta.ConfirmedAt
	if meta.Version != b.Version || confirmed.IsZero() || confirmed.After(now) {
		confirmed, meta.ETag = b.IssuedAt, "" // unknown: as old as the bundle itself
	}
	if err := r.install(b, signed, meta.ETag, confirmed); err != nil {
		r.log.Warn("persisted bundle cannot be executed; starting without a bundle", "err", err)
		return nil
	}
	r.log.Info("serving the persisted bundle", "version", b.Version, "confirmed_at", confirmed)
	return nil
}

// Sync fetches the bundle once. A 304 or the same bytes again confirm the
// bundle in force; a new bundle is verified (signature, newer version, not
// expired), compiled, swapped in and persisted. Any refusal keeps the last
// good bundle and is returned.
func (r *Runtime) Sync(ctx context.Context) error { return r.syncWaiting(ctx, 0, nil) }

// syncWaiting is Sync asking the console to hold the conditional request
// for up to wait when nothing changed (long polling, longpoll.go); held
// receives the wait the console applied (0: it answered at once, as a
// console without long polling does).
func (r *Runtime) syncWaiting(ctx context.Context, wait time.Duration, held *time.Duration) error {
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	keys := r.keys.Load()
	if keys == nil {
		var err error
		if keys, err = r.trustOnFirstUse(ctx); err != nil {
			r.metrics.fetch("error")
			return err
		}
	}
	cur := r.snap.Load()
	if r.registry != nil {
		err := r.syncRegistry(ctx, r.registry, *keys, cur)
		r.sendCallRecords(ctx) // to the console that gets the fleet report, when one is configured
		return err
	}
	var etag string
	var running int64
	if cur != nil {
		etag, running = cur.etag, cur.bundle.Version
	}
	f, err := r.source.fetchBundle(ctx, fetchRequest{etag: etag, running: running, refused: r.refusalReport(), wait: wait})
	if err != nil {
		r.metrics.fetch("error")
		return fmt.Errorf("sync: %w", err)
	}
	if held != nil {
		*held = f.applied
	}
	r.sendCallRecords(ctx) // the console answered: deliver call records on the same poll
	if f.notModified || (cur != nil && signedIDOf(f.signed) == cur.signed) {
		r.metrics.fetch("not_modified")
		return r.confirm(cur, f.etag)
	}
	return r.accept(f.signed, f.etag, *keys, cur)
}

// confirm records that the bundle in force is still the console's current
// one: its age for the staleness rule starts again.
func (r *Runtime) confirm(cur *snapshot, etag string) error {
	if cur == nil {
		return nil
	}
	now := r.opts.Now()
	r.confirmedAt.Store(now.UnixNano())
	// An answer without an ETag (same bytes, no header) keeps the one in
	// force, in memory and on disk, so later fetches stay conditional.
	if etag == "" {
		etag = cur.etag
	}
	if etag != cur.etag {
		next := *cur
		next.etag = etag
		r.snap.Store(&next)
	}
	r.reconcile() // a stale bundle confirmed again lists its risky tools again
	if err := r.disk.saveMeta(bundleMeta{ETag: etag, Version: cur.bundle.Version, ConfirmedAt: now}); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}

// accept verifies a fetched bundle and swaps it in.
func (r *Runtime) accept(signed []byte, etag string, keys bundle.KeySet, cur *snapshot) error {
	now := r.opts.Now()
	var last int64
	if cur != nil {
		last = cur.bundle.Version
	}
	b, _, err := bundle.Verify(signed, keys, bundle.VerifyOptions{Now: now, LastVersion: r.lastVersion(cur), Memo: &r.memo,
		Schemas: r.opts.BundleSchemas})
	if err == nil && !acceptableForm(b, cur) {
		err = fmt.Errorf("verify bundle: %w: version %d again, not its %s form replacing the %s one in force",
			bundle.ErrStaleVersion, b.Version, bundle.SchemaV2, bundle.SchemaV1)
	}
	if err != nil {
		r.metrics.refused(err)
		r.log.Warn("bundle refused; keeping the last good one", "err", err, "running", last)
		r.lastRefusal.Store(fmt.Sprintf("bundle refused (serving v%d): %s", last,
			strings.TrimPrefix(err.Error(), "verify bundle: ")))
		return fmt.Errorf("sync: bundle refused: %w", err)
	}
	confirmed := now
	if r.registry != nil {
		// A registry's bundle proves it was the newest when it was issued,
		// no later; only a timestamp confirms it since (R14).
		if confirmed = b.IssuedAt; cur != nil && r.confirmedAt.Load() > confirmed.UnixNano() {
			confirmed = time.Unix(0, r.confirmedAt.Load())
		}
	}
	if err := r.install(b, signed, etag, confirmed); err != nil {
		r.metrics.fetch("refused")
		r.log.Warn("bundle cannot be executed; keeping the last good one", "err", err, "version", b.Version)
		r.lastRefusal.Store(fmt.Sprintf("bundle v%d refused (serving v%d): %s", b.Version, last, err))
		return fmt.Errorf("sync: %w", err)
	}
	r.lastRefusal.Store("")
	r.metrics.fetch("accepted")
	r.log.Info("bundle accepted", "version", b.Version, "tools", len(b.Tools), "previous", last)
	meta := bundleMeta{ETag: etag, Version: b.Version, ConfirmedAt: confirmed}
	if err := r.disk.saveBundle(bytes.TrimSpace(signed), meta); err != nil {
		return fmt.Errorf("sync: bundle v%d is in force but could not be persisted: %w", b.Version, err)
	}
	return nil
}

// install compiles a verified bundle and makes it the one in force: one
// atomic pointer store, so calls already running finish on the executor
// they started with, and the next call sees the new one. The executor is
// built incrementally from the one in force (unchanged tools and cached
// schemas are reused), and so are the MCP definitions. A tool that cannot
// be compiled or listed is withheld, logged and counted; the rest of the
// bundle is served.
func (r *Runtime) install(b *bundle.Bundle, signed []byte, etag string, confirmed time.Time) error {
	cur := r.snap.Load()
	opts := r.execOpts
	if cur != nil {
		opts.Previous = cur.exec
		shareUnchanged(b, cur)
	}
	exec, err := executor.New(b, opts)
	if err != nil {
		return err
	}
	s := &snapshot{bundle: b, signed: signedIDOf(signed), etag: etag, exec: exec,
		tools: make(map[string]*bundle.Tool, len(b.Tools)), withheld: map[string]string{}}
	if r.registry != nil {
		s.digest = bundle.BundleDigest(signed)
	}
	for i := range b.Tools {
		s.tools[b.Tools[i].Name] = &b.Tools[i]
	}
	for _, w := range exec.Withheld() {
		s.withheld[w.Tool] = w.Reason
	}
	s.listings = listings(b, cur, s.withheld)
	for _, name := range slices.Sorted(maps.Keys(s.withheld)) {
		r.log.Error("tool withheld: this runtime cannot serve it; the rest of the bundle is served",
			"tool", name, "version", b.Version, "reason", s.withheld[name])
	}
	r.confirmedAt.Store(confirmed.UnixNano())
	r.snap.Store(s)
	r.metrics.installed(b, len(s.withheld))
	r.reconcile()
	return nil
}

// shareUnchanged points the large values of b's tools (input schema,
// description, parameters, reasons) at the equal values of the bundle in
// force. The compiled tools and MCP definitions taken over from the
// previous snapshot hold those; without this, every swap would keep two
// copies of each unchanged tool, the old one through them and the new one
// through the snapshot. b was just decoded and is not shared yet.
func shareUnchanged(b *bundle.Bundle, cur *snapshot) {
	for i := range b.Tools {
		t := &b.Tools[i]
		old, ok := cur.tools[t.Name]
		if !ok {
			continue
		}
		if bytes.Equal(t.InputSchema, old.InputSchema) {
			t.InputSchema = old.InputSchema
		}
		if t.Description == old.Description {
			t.Description = old.Description
		}
		if slices.Equal(t.Params, old.Params) {
			t.Params = old.Params
		}
		if slices.Equal(t.Reasons, old.Reasons) {
			t.Reasons = old.Reasons
		}
	}
}

// signedID tells a signed bundle from another without keeping its bytes
// or hashing megabytes on every swap: the length and the Ed25519 signature
// (the JWS's last part). Ed25519 signatures are deterministic, so the same
// bytes give the same ID; different content under the same key gives a
// different signature except with negligible probability. An ID match only
// ever confirms the bundle in force (never installs anything), and whoever
// could forge a match could as well replay the real bytes, which confirm
// too.
type signedID struct {
	size      int
	signature string
}

func signedIDOf(signed []byte) signedID {
	signed = bytes.TrimSpace(signed)
	return signedID{size: len(signed), signature: string(signed[bytes.LastIndexByte(signed, '.')+1:])}
}
