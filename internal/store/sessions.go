package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/auth"
)

// SessionPolicy bounds how long a session lives.
type SessionPolicy struct {
	Idle     time.Duration // ends after this long without a request
	Absolute time.Duration // ends this long after sign-in, whatever happens
}

// Session is a signed-in browser.
type Session struct {
	UserID     int64
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
}

// touchEvery caps the interval between last-seen writes of one session;
// touchInterval shortens it for short idle timeouts. Every touch is a write,
// so it is rare, but it must be frequent enough that a session in use never
// idles out between two touches.
const touchEvery = time.Minute

// touchInterval is how stale last-seen may get before a request refreshes
// it: a quarter of the idle timeout, at most touchEvery. A session used at
// least every 3/4 of the idle timeout therefore never expires (with a 1 m
// idle timeout: touched every 15 s, so a request every 20 s keeps it).
func touchInterval(idle time.Duration) time.Duration {
	return min(touchEvery, idle/4)
}

// hashToken is how a session id is stored: a database leak does not yield
// usable cookies.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("session token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Login starts a new session for user and records "login.success" from
// address. It returns the session token to put in the cookie. A new token on
// every sign-in is what prevents session fixation. A password an admin set
// opens one session only; later ones are ErrInitialPasswordUsed
// (users_password.go).
func (db *DB) Login(ctx context.Context, u *User, address string, p SessionPolicy) (string, error) {
	token, err := newToken()
	if err != nil {
		return "", err
	}
	err = db.inTx(ctx, "login", func(tx *sqlx.Tx) error {
		if err := useInitialPassword(ctx, tx, u.ID); err != nil {
			return err
		}
		if err := insertSession(ctx, tx, u.ID, token, db.Now(), p); err != nil {
			return err
		}
		after := auditJSON(map[string]string{"address": address})
		if err := db.appendAudit(ctx, tx, audit.Entry{Actor: u.Email, Action: "login.success",
			Subject: subjectUser(u.ID), After: after}); err != nil {
			return err
		}
		if !u.BreakGlass {
			return nil
		}
		// Loud on purpose: the dashboard lists these (users_breakglass.go).
		return db.appendAudit(ctx, tx, audit.Entry{Actor: u.Email, Action: "login.break_glass",
			Subject: subjectUser(u.ID), After: after})
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// insertSession stores a new session of user id for token, dropping the
// user's expired ones on the way.
func insertSession(ctx context.Context, tx *sqlx.Tx, id int64, token string, now time.Time, p SessionPolicy) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ? AND expires_at < ?`, id, formatTime(now)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id_hash, user_id, created_at, last_seen_at, expires_at)
		VALUES (?, ?, ?, ?, ?)`, hashToken(token), id, formatTime(now), formatTime(now), formatTime(now.Add(p.Absolute)))
	return err
}

// RecordLoginFailure audits a refused sign-in ("login.failure"); email is
// what was typed, whether or not such a user exists.
func (db *DB) RecordLoginFailure(ctx context.Context, email, address, reason string) error {
	return db.inTx(ctx, "record login failure", func(tx *sqlx.Tx) error {
		return db.appendAudit(ctx, tx, audit.Entry{Actor: email, Action: "login.failure", Subject: "email:" + email,
			After: auditJSON(map[string]string{"address": address, "reason": reason})})
	})
}

// RecordRefusedSignIns audits summaries of sign-ins the throttle refused
// ("login.throttled"), one entry each, in one transaction: a flood of
// refusals costs one entry per account, address, reason and window
// (auth.RefusalTally), not one per attempt.
func (db *DB) RecordRefusedSignIns(ctx context.Context, rs []auth.RefusedSignIns) error {
	if len(rs) == 0 {
		return nil
	}
	return db.inTx(ctx, "record refused sign-ins", func(tx *sqlx.Tx) error {
		q := db.auditQueue()
		for _, r := range rs {
			q.add(audit.Entry{Actor: r.Account, Action: "login.throttled", Subject: "email:" + r.Account,
				After: auditJSON(map[string]string{"address": r.Address, "reason": r.Reason, "count": strconv.Itoa(r.Count),
					"first": r.First.UTC().Format(time.RFC3339Nano), "last": r.Last.UTC().Format(time.RFC3339Nano)})})
		}
		return q.flush(ctx, tx)
	})
}

// SessionUser returns the signed-in user of token. It is Unauthorized when
// the session does not exist, has expired (idle or absolute), or belongs to
// a disabled user; expired sessions are deleted on the way.
//
// It runs on every request, so it reads in a read-only transaction and
// writes only when there is something to write: deleting an expired
// session, or refreshing last-seen once touchInterval has passed. A touch
// that finds the database busy is skipped (the next request retries it);
// the request itself does not fail for it.
func (db *DB) SessionUser(ctx context.Context, token string, p SessionPolicy) (*User, *Session, error) {
	h := hashToken(token)
	var u *User
	var s Session
	err := db.readTx(ctx, "session user", func(tx *sqlx.Tx) error {
		var err error
		if s, err = sessionByHash(ctx, tx, h); err != nil {
			return err
		}
		u, err = userByID(ctx, tx, s.UserID)
		if apperr.CodeOf(err) == apperr.NotFound {
			return errSessionEnded
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	now := db.Now()
	if now.After(s.ExpiresAt) || now.Sub(s.LastSeenAt) > p.Idle {
		if err := db.inTx(ctx, "end expired session", func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id_hash = ?`, h)
			return err
		}); err != nil && apperr.CodeOf(err) != apperr.Unavailable {
			return nil, nil, err
		}
		return nil, nil, errSessionEnded
	}
	if u.Disabled {
		return nil, nil, errSessionEnded
	}
	if now.Sub(s.LastSeenAt) >= touchInterval(p.Idle) {
		err := db.inTx(ctx, "touch session", func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE sessions SET last_seen_at = ? WHERE id_hash = ? AND last_seen_at < ?`,
				formatTime(now), h, formatTime(now))
			return err
		})
		switch {
		case err == nil:
			s.LastSeenAt = now
		case apperr.CodeOf(err) != apperr.Unavailable:
			return nil, nil, err
		}
	}
	return u, &s, nil
}

var errSessionEnded = apperr.Unauthorizedf("Your session has ended. Please sign in again.")

// sessionByHash reads the session whose token hashes to h.
func sessionByHash(ctx context.Context, tx *sqlx.Tx, h string) (Session, error) {
	var r struct {
		UserID   int64  `db:"user_id"`
		Created  string `db:"created_at"`
		LastSeen string `db:"last_seen_at"`
		Expires  string `db:"expires_at"`
	}
	var s Session
	err := tx.GetContext(ctx, &r, `SELECT user_id, created_at, last_seen_at, expires_at FROM sessions WHERE id_hash = ?`, h)
	if errors.Is(err, sql.ErrNoRows) {
		return s, errSessionEnded
	}
	if err != nil {
		return s, err
	}
	s.UserID = r.UserID
	for _, f := range []struct {
		dst *time.Time
		src string
	}{{&s.CreatedAt, r.Created}, {&s.LastSeenAt, r.LastSeen}, {&s.ExpiresAt, r.Expires}} {
		if *f.dst, err = parseTime(f.src); err != nil {
			return s, err
		}
	}
	return s, nil
}

// Logout ends the session of token and records "logout" by actor. Ending a
// session that no longer exists is not an error: the outcome is the same.
func (db *DB) Logout(ctx context.Context, token string, u *User) error {
	return db.inTx(ctx, "logout", func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id_hash = ?`, hashToken(token))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: u.Email, Action: "logout", Subject: subjectUser(u.ID)})
	})
}
