package runtimeapi

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"github.com/toolgate/toolgate/internal/store"
)

// A token missing from the in-memory index may have been created a moment
// ago by another process (the CLI's `token create`, a second console):
// rather than refuse it until the next poll, the miss consults the
// database (one fingerprint query; a reload only when the tokens table
// moved). Wrong tokens must not turn that into one query per request, so
// a hash found missing is remembered for missTTL (at most missEntries of
// them, least recently used dropped first), and the consultations
// themselves are rate-limited: a flood of distinct wrong tokens costs at
// most missRate queries a second, after which misses are refused from
// memory and the poll (every pollEvery) remains the bound on freshness.
const (
	missEntries = 4096
	missTTL     = time.Minute
	missRate    = 10 // consultations per second
	missBurst   = 10
)

// tokenMisses is the negative cache and the consultation budget of the
// token index.
type tokenMisses struct {
	seen    *lru.Cache[[sha256.Size]byte, time.Time] // hash → when it was found missing
	limiter *rate.Limiter
	now     func() time.Time
	mu      sync.Mutex // orders Get and Add against one another's expiry checks
}

func newTokenMisses(now func() time.Time) *tokenMisses {
	seen, err := lru.New[[sha256.Size]byte, time.Time](missEntries)
	if err != nil {
		panic("token misses: " + err.Error()) // only for a size below 1
	}
	return &tokenMisses{seen: seen, limiter: rate.NewLimiter(missRate, missBurst), now: now}
}

// known reports whether hash was found missing within missTTL.
func (m *tokenMisses) known(hash [sha256.Size]byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	at, ok := m.seen.Get(hash)
	if ok && m.now().Sub(at) >= missTTL {
		m.seen.Remove(hash)
		return false
	}
	return ok
}

func (m *tokenMisses) add(hash [sha256.Size]byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen.Add(hash, m.now())
}

// tokenMiss looks for a token the index does not hold: in the negative
// cache first, then — within the budget — in the database.
func (st *apiState) tokenMiss(ctx context.Context, hash [sha256.Size]byte) (store.ActiveRuntimeToken, bool, error) {
	if st.misses.known(hash) || !st.misses.limiter.Allow() {
		return store.ActiveRuntimeToken{}, false, nil
	}
	idx, err := st.refreshTokens(ctx, false)
	if err != nil {
		return store.ActiveRuntimeToken{}, false, err
	}
	if t, ok := idx.byHash[hash]; ok {
		return t, true, nil
	}
	st.misses.add(hash)
	return store.ActiveRuntimeToken{}, false, nil
}
