package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
)

// Push states of a bundle version in a registry.
const (
	PushPending = "pending" // waiting for its (next) attempt
	PushPushing = "pushing" // claimed by a pusher until ClaimedUntil
	PushPushed  = "pushed"
	PushFailed  = "failed" // the last attempt failed; retried at NextAttemptAt
)

// BundlePush is where the push of one bundle version to one registry
// target stands.
type BundlePush struct {
	Version  int64
	Target   string
	State    string
	Attempts int
	// LastError is the sanitised reason of the last failed attempt.
	LastError     string
	Digest        string
	NextAttemptAt time.Time
	ClaimedUntil  time.Time // zero unless State is PushPushing
	UpdatedAt     time.Time
	PushedAt      time.Time // zero until pushed
}

type pushRow struct {
	Version       int64  `db:"version"`
	Target        string `db:"target"`
	State         string `db:"state"`
	Attempts      int    `db:"attempts"`
	LastError     string `db:"last_error"`
	Digest        string `db:"digest"`
	NextAttemptAt string `db:"next_attempt_at"`
	ClaimedUntil  string `db:"claimed_until"`
	UpdatedAt     string `db:"updated_at"`
	PushedAt      string `db:"pushed_at"`
}

func (r pushRow) push() (BundlePush, error) {
	p := BundlePush{Version: r.Version, Target: r.Target, State: r.State, Attempts: r.Attempts,
		LastError: r.LastError, Digest: r.Digest}
	for _, f := range []struct {
		dst *time.Time
		s   string
	}{{&p.NextAttemptAt, r.NextAttemptAt}, {&p.ClaimedUntil, r.ClaimedUntil}, {&p.UpdatedAt, r.UpdatedAt}, {&p.PushedAt, r.PushedAt}} {
		if f.s == "" {
			continue
		}
		t, err := parseTime(f.s)
		if err != nil {
			return p, err
		}
		*f.dst = t
	}
	return p, nil
}

// EnqueuePushes adds a pending push to target for every bundle published
// after the newest version target already has a row for; for a target
// without rows, only the current version (older history is not pushed).
// Concurrent callers (two consoles) insert each row once. It returns how
// many rows it added. (The CASTs give PostgreSQL the parameter types a
// SELECT list cannot infer.)
func (db *DB) EnqueuePushes(ctx context.Context, target string) (int64, error) {
	var n int64
	err := db.inTx(ctx, "enqueue pushes", func(tx *sqlx.Tx) error {
		now := formatTime(db.Now())
		res, err := tx.ExecContext(ctx, `INSERT INTO bundle_pushes (version, target, state, next_attempt_at, updated_at)
			SELECT b.version, CAST(? AS TEXT), 'pending', CAST(? AS TEXT), CAST(? AS TEXT) FROM bundles b
			WHERE b.version > COALESCE((SELECT MAX(p.version) FROM bundle_pushes p WHERE p.target = ?),
			                           (SELECT MAX(b2.version) FROM bundles b2) - 1)
			ON CONFLICT (version, target) DO NOTHING`, target, now, now, target)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// ClaimPush claims the oldest push of target that is due (pending or
// failed with its next attempt reached, or pushing with an expired claim)
// for lease, counting the attempt. ok is false when none is due. The
// claim is a conditional UPDATE on the row's state and claim, so two
// pushers (two consoles on one database) never claim the same row.
func (db *DB) ClaimPush(ctx context.Context, target string, lease time.Duration) (BundlePush, bool, error) {
	var p BundlePush
	var ok bool
	err := db.inTx(ctx, "claim push", func(tx *sqlx.Tx) error {
		now := db.Now()
		var row pushRow
		err := tx.GetContext(ctx, &row, `SELECT * FROM bundle_pushes WHERE target = ? AND (
				(state IN ('pending', 'failed') AND next_attempt_at <= ?) OR (state = 'pushing' AND claimed_until < ?))
			ORDER BY version LIMIT 1`, target, formatTime(now), formatTime(now))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		until := formatTime(now.Add(lease))
		res, err := tx.ExecContext(ctx, `UPDATE bundle_pushes SET state = 'pushing', claimed_until = ?,
				attempts = attempts + 1, updated_at = ?
			WHERE version = ? AND target = ? AND state = ? AND claimed_until = ? AND attempts = ?`,
			until, formatTime(now), row.Version, target, row.State, row.ClaimedUntil, row.Attempts)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return err // another pusher won: nothing claimed
		}
		row.State, row.ClaimedUntil, row.Attempts, row.UpdatedAt = PushPushing, until, row.Attempts+1, formatTime(now)
		p, err = row.push()
		ok = err == nil
		return err
	})
	return p, ok, err
}

// PushSucceeded records that p (as claimed) is in the registry.
func (db *DB) PushSucceeded(ctx context.Context, p BundlePush, digest string) error {
	return db.inTx(ctx, "push succeeded", func(tx *sqlx.Tx) error {
		now := formatTime(db.Now())
		_, err := tx.ExecContext(ctx, `UPDATE bundle_pushes SET state = 'pushed', digest = ?, last_error = '',
				claimed_until = '', pushed_at = ?, updated_at = ?
			WHERE version = ? AND target = ? AND state = 'pushing'`, digest, now, now, p.Version, p.Target)
		return err
	})
}

// PushFailedAt records a failed attempt of p with its sanitised reason and
// when to try again.
func (db *DB) PushFailedAt(ctx context.Context, p BundlePush, reason string, next time.Time) error {
	return db.inTx(ctx, "push failed", func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE bundle_pushes SET state = 'failed', last_error = ?, claimed_until = '',
				next_attempt_at = ?, updated_at = ?
			WHERE version = ? AND target = ? AND state = 'pushing'`,
			reason, formatTime(next), formatTime(db.Now()), p.Version, p.Target)
		return err
	})
}

// RetryPushNow makes the push of version to target due now. A push that
// is already done is Invalid; one being pushed right now is left alone;
// no row is NotFound.
func (db *DB) RetryPushNow(ctx context.Context, version int64, target string) error {
	return db.inTx(ctx, "retry push", func(tx *sqlx.Tx) error {
		var state string
		err := tx.GetContext(ctx, &state, `SELECT state FROM bundle_pushes WHERE version = ? AND target = ?`, version, target)
		if err != nil {
			return notFound(err, fmt.Sprintf("A push of bundle v%d", version))
		}
		switch state {
		case PushPushed:
			return apperr.Invalidf("Bundle v%d is already in the registry.", version)
		case PushPushing:
			return nil
		}
		now := formatTime(db.Now())
		_, err = tx.ExecContext(ctx, `UPDATE bundle_pushes SET next_attempt_at = ?, updated_at = ?
			WHERE version = ? AND target = ? AND state IN ('pending', 'failed')`, now, now, version, target)
		return err
	})
}

// BundlePushes returns the pushes to target by version.
func (db *DB) BundlePushes(ctx context.Context, target string) (map[int64]BundlePush, error) {
	out := map[int64]BundlePush{}
	err := db.readTx(ctx, "bundle pushes", func(tx *sqlx.Tx) error {
		var rows []pushRow
		if err := tx.SelectContext(ctx, &rows, `SELECT * FROM bundle_pushes WHERE target = ? ORDER BY version`, target); err != nil {
			return err
		}
		for _, r := range rows {
			p, err := r.push()
			if err != nil {
				return err
			}
			out[p.Version] = p
		}
		return nil
	})
	return out, err
}
