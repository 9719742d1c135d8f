package store

import (
	"context"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/auth/throttletest"
)

// The database-backed buckets keep every rule of the in-memory throttle.
func TestLoginThrottleSemantics(t *testing.T) {
	for _, engine := range Engines {
		t.Run(string(engine), func(t *testing.T) {
			throttletest.Run(t, func(t *testing.T, cfg auth.ThrottleConfig) *auth.Throttle {
				db := MustOpenEngine(t, engine)
				b, err := db.LoginThrottle(cfg)
				if err != nil {
					t.Fatal(err)
				}
				return auth.NewSharedThrottle(cfg, b)
			})
		})
	}
}

// Guesses spread over two database handles (two consoles) meet one limit,
// and a success on one makes the pair known on the other.
func TestLoginThrottleSharedAcrossHandles(t *testing.T) {
	for _, engine := range Engines {
		t.Run(string(engine), func(t *testing.T) { testLoginThrottleShared(t, engine) })
	}
}

func testLoginThrottleShared(t *testing.T, engine Engine) {
	ctx := context.Background()
	cfg := auth.DefaultThrottle()
	a, b := MustOpenShared(t, engine)
	now := time.Now()
	throttles := make([]*auth.Throttle, 2)
	for i, db := range []*DB{a, b} {
		bk, err := db.LoginThrottle(cfg)
		if err != nil {
			t.Fatal(err)
		}
		throttles[i] = auth.NewSharedThrottle(cfg, bk)
	}
	admitted := 0
	for i := range 10 {
		c, why, _, err := throttles[i%2].Begin(ctx, "a@x", "ip1", now)
		if err != nil {
			t.Fatal(err)
		}
		if why == auth.NotRefused {
			admitted++
			c.Failed()
		}
	}
	if admitted != cfg.PairBurst {
		t.Errorf("%d guesses admitted over two consoles, want the pair burst %d", admitted, cfg.PairBurst)
	}
	// The account ceiling: a success from "home" on A exempts home on B.
	c, why, _, err := throttles[0].Begin(ctx, "b@x", "home", now)
	if err != nil || why != auth.NotRefused {
		t.Fatal(why, err)
	}
	if err := c.Succeeded(ctx, now); err != nil {
		t.Fatal(err)
	}
	for i := range cfg.AccountBurst + 5 {
		if c, why, _, _ := throttles[i%2].Begin(ctx, "b@x", "bot"+string(rune('a'+i)), now); why == auth.NotRefused {
			c.Failed()
		}
	}
	if _, why, _, _ := throttles[1].Begin(ctx, "b@x", "new", now); why != auth.Throttled {
		t.Errorf("a new address passes the account ceiling emptied on both consoles: %v", why)
	}
	if c, why, _, _ := throttles[1].Begin(ctx, "b@x", "home", now); why != auth.NotRefused {
		t.Errorf("console B locks the person out of the address they signed in from on A: %v", why)
	} else {
		c.Failed()
	}
}
