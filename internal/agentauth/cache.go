package agentauth

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Defaults of the verified-token cache.
const (
	// DefaultCacheTTL bounds how long a verified JWT is trusted without
	// checking it again (never past its exp).
	DefaultCacheTTL = time.Minute
	// cacheSize bounds the entries kept; a full cache drops its expired
	// entries, then, if still full, all of them.
	cacheSize = 4096
)

// cache holds verified tokens by the SHA-256 of the token (the token
// itself is not kept), each until min(exp, TTL after verification).
type cache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[[sha256.Size]byte]cached
}

type cached struct {
	info  *auth.TokenInfo
	until time.Time
}

func newCache(ttl time.Duration, now func() time.Time) *cache {
	if ttl <= 0 {
		ttl = DefaultCacheTTL
	}
	return &cache{ttl: ttl, now: now, entries: map[[sha256.Size]byte]cached{}}
}

// get returns the cached information of token, or verifies it and caches
// a success. Failures are not cached: a refused token costs the attacker
// as much as it costs us.
func (c *cache) get(token string, verify func(string) (*auth.TokenInfo, error)) (*auth.TokenInfo, error) {
	key := sha256.Sum256([]byte(token))
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.info, nil
	}
	info, err := verify(token)
	if err != nil {
		return nil, err
	}
	until := now.Add(c.ttl)
	if !info.Expiration.IsZero() && info.Expiration.Before(until) {
		until = info.Expiration
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= cacheSize {
		for k, e := range c.entries {
			if !now.Before(e.until) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= cacheSize {
			clear(c.entries)
		}
	}
	c.entries[key] = cached{info: info, until: until}
	return info, nil
}
