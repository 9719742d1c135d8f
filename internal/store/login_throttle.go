package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/auth"
)

// LoginThrottle keeps the sign-in throttle's buckets in the database
// (auth.Buckets), so that guesses spread over several consoles sharing it
// meet the same limits as guesses at one. Each bucket is one GCRA time in
// login_throttle, each known (account, address) pair a row in
// login_known_pairs; Take and Refund each run in one write transaction, so
// they are atomic across consoles as the in-memory lock is within one.
// Rows of full buckets and of pairs known longer ago than KnownFor carry
// nothing and are deleted as Take goes, which bounds the tables.
type LoginThrottle struct {
	db                     *DB
	pair, account, address auth.GCRA
	knownFor               time.Duration
}

// LoginThrottle returns the database-backed buckets for cfg. Every refill
// interval must be positive (auth.GCRA).
func (db *DB) LoginThrottle(cfg auth.ThrottleConfig) (*LoginThrottle, error) {
	if cfg.PairEvery <= 0 || cfg.AccountEvery <= 0 || cfg.AddressEvery <= 0 || cfg.KnownFor <= 0 {
		return nil, fmt.Errorf("login throttle: refill intervals and KnownFor must be positive")
	}
	return &LoginThrottle{db: db, knownFor: cfg.KnownFor,
		pair:    auth.GCRA{Every: cfg.PairEvery, Burst: cfg.PairBurst},
		account: auth.GCRA{Every: cfg.AccountEvery, Burst: cfg.AccountBurst},
		address: auth.GCRA{Every: cfg.AddressEvery, Burst: cfg.AddressBurst}}, nil
}

// throttleKey hashes a bucket's kind and key: fixed-size keys, and no
// address or typed text stored in the clear.
func throttleKey(kind string, parts ...string) string {
	h := sha256.New()
	h.Write([]byte(kind))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

type throttleBucket struct {
	key  string
	gcra auth.GCRA
}

func (t *LoginThrottle) buckets(account, address string, withAccount bool) []throttleBucket {
	b := []throttleBucket{{throttleKey("pair", account, address), t.pair}, {throttleKey("address", address), t.address}}
	if withAccount {
		b = append(b, throttleBucket{throttleKey("account", account), t.account})
	}
	return b
}

// Take implements auth.Buckets.
func (t *LoginThrottle) Take(ctx context.Context, account, address string, now time.Time) (bool, time.Duration, error) {
	ms := now.UnixMilli()
	var withAccount bool
	var wait time.Duration
	err := t.db.inTx(ctx, "sign-in throttle", func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM login_throttle WHERE tat_ms <= ?`, ms); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM login_known_pairs WHERE at_ms <= ?`, ms-t.knownFor.Milliseconds()); err != nil {
			return err
		}
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT COUNT(*) FROM login_known_pairs WHERE pair = ?`,
			throttleKey("known", account, address)); err != nil {
			return err
		}
		withAccount = n == 0
		bs := t.buckets(account, address, withAccount)
		tats := make([]int64, len(bs))
		for i, b := range bs {
			tat, err := bucketTAT(ctx, tx, b.key, ms)
			if err != nil {
				return err
			}
			tats[i], wait = tat, max(wait, b.gcra.Wait(tat, ms))
		}
		if wait > 0 {
			return nil
		}
		for i, b := range bs {
			if err := setBucketTAT(ctx, tx, b.key, b.gcra.Take(tats[i], ms)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, 0, err
	}
	return withAccount, wait, nil
}

// Refund implements auth.Buckets.
func (t *LoginThrottle) Refund(ctx context.Context, account, address string, accountTaken bool, now time.Time) error {
	ms := now.UnixMilli()
	return t.db.inTx(ctx, "sign-in throttle refund", func(tx *sqlx.Tx) error {
		for _, b := range t.buckets(account, address, accountTaken) {
			tat, err := bucketTAT(ctx, tx, b.key, ms)
			if err != nil {
				return err
			}
			if err := setBucketTAT(ctx, tx, b.key, b.gcra.Refund(tat, ms)); err != nil {
				return err
			}
		}
		return nil
	})
}

// Remember implements auth.Buckets.
func (t *LoginThrottle) Remember(ctx context.Context, account, address string, now time.Time) error {
	return t.db.inTx(ctx, "sign-in throttle known pair", func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO login_known_pairs (pair, at_ms) VALUES (?, ?)
			ON CONFLICT (pair) DO UPDATE SET at_ms = excluded.at_ms`, throttleKey("known", account, address), now.UnixMilli())
		return err
	})
}

// bucketTAT reads a bucket's TAT; a bucket without a row is full (now).
func bucketTAT(ctx context.Context, tx *sqlx.Tx, key string, now int64) (int64, error) {
	var tat int64
	err := tx.GetContext(ctx, &tat, `SELECT tat_ms FROM login_throttle WHERE bucket = ?`, key)
	if errors.Is(err, sql.ErrNoRows) {
		return now, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read throttle bucket: %w", err)
	}
	return tat, nil
}

func setBucketTAT(ctx context.Context, tx *sqlx.Tx, key string, tat int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO login_throttle (bucket, tat_ms) VALUES (?, ?)
		ON CONFLICT (bucket) DO UPDATE SET tat_ms = excluded.tat_ms`, key, tat)
	if err != nil {
		return fmt.Errorf("write throttle bucket: %w", err)
	}
	return nil
}
