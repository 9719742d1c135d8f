package runtimeapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/internal/store"
)

// apiState is what the bundle API answers from: the current bundle (its
// version, ETag and signed bytes) and the active runtime tokens, held in
// memory so that the request every runtime makes every few seconds — a
// conditional GET answered 304 — costs no database access at all, whatever
// the bundle's size.
//
// Freshness: a publish, rollback, token creation or revocation made through
// this process's store is seen on the very next request (the store counts
// its own commits; comparing the count is an atomic load). Changes made by
// another process on the same database (a second console, the CLI) are
// picked up by poll, every pollEvery, with cheap fingerprint queries that
// never read a payload; a token the index lacks is looked for at once
// (tokenMiss), so a token created by another process works immediately.
type apiState struct {
	db     *store.DB
	bundle atomic.Pointer[servedBundle]
	tokens atomic.Pointer[tokenIndex]
	misses *tokenMisses // see token_miss.go
	// mu serialises reloads, so a slow poll that read the old state cannot
	// overwrite what a reload after a local change stored.
	mu sync.Mutex
}

// servedBundle is the current bundle as served; version 0 before the first
// publish.
type servedBundle struct {
	version     int64
	versionText string
	etag        string
	signed      []byte
	local       uint64 // store.LocalBundleChanges when it was read
	// etagHeader is etag as a header value, built once (the fast path
	// assigns it without allocating); etagBytes and versionBytes are
	// etag and versionText for the fasthttp listener, likewise.
	etagHeader              []string
	etagBytes, versionBytes []byte
	// v1Form is the version's toolgate.bundle/v1 form when it is v2 (nil
	// otherwise), served to runtimes that read only v1 (formFor).
	v1Form *servedBundle
}

// tokenIndex is the active runtime tokens by the SHA-256 of their value
// (the stored hex, decoded: looking up a fixed-size array allocates
// nothing).
type tokenIndex struct {
	byHash      map[[sha256.Size]byte]store.ActiveRuntimeToken
	fingerprint string
	local       uint64 // store.LocalTokenChanges when it was read
}

func newAPIState(ctx context.Context, db *store.DB) (*apiState, error) {
	st := &apiState{db: db, misses: newTokenMisses(func() time.Time { return db.Now() })}
	if _, err := st.refreshBundle(ctx); err != nil {
		return nil, err
	}
	if _, err := st.refreshTokens(ctx, true); err != nil {
		return nil, err
	}
	return st, nil
}

// current returns the bundle to serve, reloading it first when this process
// published since it was read.
func (st *apiState) current(ctx context.Context) (*servedBundle, error) {
	if b := st.bundle.Load(); b.local == st.db.LocalBundleChanges() {
		return b, nil
	}
	return st.refreshBundle(ctx)
}

// refreshBundle reads the latest version number (one b-tree lookup) and,
// when it differs from the one held, loads that version's signed bytes.
func (st *apiState) refreshBundle(ctx context.Context) (*servedBundle, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	local := st.db.LocalBundleChanges() // before reading: a later commit moves it again
	v, err := st.db.LatestBundleVersion(ctx)
	if err != nil {
		return nil, err
	}
	if old := st.bundle.Load(); old != nil && old.version == v {
		if old.local != local {
			b := *old
			b.local = local
			st.bundle.Store(&b)
			return &b, nil
		}
		return old, nil
	}
	b := &servedBundle{version: v, local: local}
	if v > 0 {
		rec, err := st.db.ServedBundle(ctx, v)
		if err != nil {
			return nil, err
		}
		b.versionText, b.etag, b.signed = strconv.FormatInt(v, 10), rec.ETag, []byte(rec.Signed)
		b.etagHeader = []string{rec.ETag}
		b.etagBytes, b.versionBytes = []byte(b.etag), []byte(b.versionText)
		b.v1Form = servedV1Form(rec.Downgrade, b.versionText)
	}
	st.bundle.Store(b)
	return b, nil
}

// token returns the active token whose value has this SHA-256, reloading
// the index first when this process created or revoked a token since it
// was read. A hash the index lacks is looked for in the database
// (tokenMiss), so a token another process created is accepted at once.
func (st *apiState) token(ctx context.Context, hash [sha256.Size]byte) (store.ActiveRuntimeToken, bool, error) {
	idx := st.tokens.Load()
	if idx.local != st.db.LocalTokenChanges() {
		var err error
		if idx, err = st.refreshTokens(ctx, true); err != nil {
			return store.ActiveRuntimeToken{}, false, err
		}
	}
	if t, ok := idx.byHash[hash]; ok {
		return t, true, nil
	}
	return st.tokenMiss(ctx, hash)
}

// refreshTokens reloads the index; unless force, only when the tokens
// table's fingerprint moved.
func (st *apiState) refreshTokens(ctx context.Context, force bool) (*tokenIndex, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	local := st.db.LocalTokenChanges()
	old := st.tokens.Load()
	if force && old != nil && old.local == local {
		return old, nil // another request reloaded it meanwhile
	}
	if !force && old != nil {
		fp, err := st.db.RuntimeTokensFingerprint(ctx)
		if err != nil {
			return nil, err
		}
		if fp == old.fingerprint {
			return old, nil
		}
	}
	list, fp, err := st.db.ActiveRuntimeTokens(ctx)
	if err != nil {
		return nil, fmt.Errorf("load runtime tokens: %w", err)
	}
	idx := &tokenIndex{byHash: make(map[[sha256.Size]byte]store.ActiveRuntimeToken, len(list)), fingerprint: fp, local: local}
	for _, t := range list {
		var sum [sha256.Size]byte
		if n, err := hex.Decode(sum[:], []byte(t.Hash)); err != nil || n != len(sum) {
			return nil, fmt.Errorf("load runtime tokens: token %q has a malformed stored hash", t.Name)
		}
		idx.byHash[sum] = t
	}
	st.tokens.Store(idx)
	return idx, nil
}

// poll picks up what another process committed: a new bundle version, a
// created or revoked token.
func (st *apiState) poll(ctx context.Context) error {
	if _, err := st.refreshBundle(ctx); err != nil {
		return err
	}
	_, err := st.refreshTokens(ctx, false)
	return err
}
