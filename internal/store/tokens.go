package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"fmt"
	"regexp"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
)

// RuntimeTokenPrefix starts every runtime token, so a leaked one is easy to
// recognise (secret scanners, logs) and never mistaken for a password.
const RuntimeTokenPrefix = "tgr_"

// tokenNameRE is the shape of a token name: short, printable, URL-safe.
var tokenNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// RuntimeToken is a named bearer token a runtime fetches bundles with. Only
// its SHA-256 is stored; the token itself is shown once, at creation.
type RuntimeToken struct {
	ID         int64
	Name       string
	CreatedAt  time.Time
	CreatedBy  string
	RevokedAt  *time.Time
	LastUsedAt *time.Time
	// InstancesEvicted counts the instance rows deleted to keep the token
	// under its bound (DefaultInstancesPerToken), the last at LastEvictedAt.
	InstancesEvicted int64
	LastEvictedAt    *time.Time
}

type tokenRow struct {
	ID         int64          `db:"id"`
	Name       string         `db:"name"`
	CreatedAt  string         `db:"created_at"`
	CreatedBy  string         `db:"created_by"`
	RevokedAt  sql.NullString `db:"revoked_at"`
	LastUsedAt sql.NullString `db:"last_used_at"`
	Evicted    int64          `db:"instances_evicted"`
	EvictedAt  sql.NullString `db:"last_evicted_at"`
}

func (r tokenRow) token() (*RuntimeToken, error) {
	created, err := parseTime(r.CreatedAt)
	if err != nil {
		return nil, err
	}
	t := &RuntimeToken{ID: r.ID, Name: r.Name, CreatedAt: created, CreatedBy: r.CreatedBy, InstancesEvicted: r.Evicted}
	if t.RevokedAt, err = parseTokenTime(r.RevokedAt); err != nil {
		return nil, err
	}
	if t.LastUsedAt, err = parseTokenTime(r.LastUsedAt); err != nil {
		return nil, err
	}
	if t.LastEvictedAt, err = parseTokenTime(r.EvictedAt); err != nil {
		return nil, err
	}
	return t, nil
}

func parseTokenTime(s sql.NullString) (*time.Time, error) {
	if !s.Valid {
		return nil, nil
	}
	t, err := parseTime(s.String)
	return &t, err
}

func (t *RuntimeToken) auditView() map[string]any {
	return map[string]any{"name": t.Name, "revoked": t.RevokedAt != nil}
}

func subjectRuntimeToken(id int64) string { return fmt.Sprintf("runtime_token:%d", id) }

// CreateRuntimeToken makes a named token and returns it with its secret
// value, which is not stored and cannot be shown again. Audited as
// "token.create".
func (db *DB) CreateRuntimeToken(ctx context.Context, actor, name string) (*RuntimeToken, string, error) {
	if !tokenNameRE.MatchString(name) {
		return nil, "", apperr.Invalidf("Name the token with 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.")
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, "", fmt.Errorf("create runtime token: %w", err)
	}
	secret := RuntimeTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	var tok *RuntimeToken
	err := db.inTx(ctx, "create runtime token", func(tx *sqlx.Tx) error {
		var id int64
		if err := tx.GetContext(ctx, &id, `INSERT INTO runtime_tokens (name, token_hash, created_at, created_by)
			VALUES (?, ?, ?, ?) RETURNING id`, name, hashToken(secret), formatTime(db.Now()), actor); err != nil {
			return err
		}
		var err error
		if tok, err = tokenBy(ctx, tx, "id", id); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "token.create", Subject: subjectRuntimeToken(id),
			After: auditJSON(tok.auditView())})
	})
	if err == nil {
		db.local.tokens.Add(1)
	}
	if apperr.CodeOf(err) == apperr.Conflict {
		return nil, "", apperr.Conflictf("A token named %q exists already (revoked tokens keep their name).", name)
	}
	return tok, secret, err
}

// RevokeRuntimeToken revokes the token named name ("token.revoke"); the next
// fetch with it gets 401. Revoking twice is a Conflict.
func (db *DB) RevokeRuntimeToken(ctx context.Context, actor, name string) (*RuntimeToken, error) {
	var tok *RuntimeToken
	err := db.inTx(ctx, "revoke runtime token", func(tx *sqlx.Tx) error {
		before, err := tokenBy(ctx, tx, "name", name)
		if err != nil {
			return err
		}
		if before.RevokedAt != nil {
			return apperr.Conflictf("The token %q is revoked already.", name)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE runtime_tokens SET revoked_at = ? WHERE id = ?`, formatTime(db.Now()), before.ID); err != nil {
			return err
		}
		if tok, err = tokenBy(ctx, tx, "id", before.ID); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "token.revoke", Subject: subjectRuntimeToken(before.ID),
			Before: auditJSON(before.auditView()), After: auditJSON(tok.auditView())})
	})
	if err == nil {
		db.local.tokens.Add(1)
	}
	return tok, err
}

// ListRuntimeTokens returns every token, active ones first, then by name.
func (db *DB) ListRuntimeTokens(ctx context.Context) ([]*RuntimeToken, error) {
	var out []*RuntimeToken
	err := db.readTx(ctx, "list runtime tokens", func(tx *sqlx.Tx) error {
		var rows []tokenRow
		if err := tx.SelectContext(ctx, &rows, `SELECT id, name, created_at, created_by, revoked_at, last_used_at, instances_evicted, last_evicted_at
			FROM runtime_tokens ORDER BY revoked_at IS NOT NULL, name`); err != nil {
			return err
		}
		for _, r := range rows {
			t, err := r.token()
			if err != nil {
				return err
			}
			out = append(out, t)
		}
		return nil
	})
	return out, err
}

// tokenBy loads a token by "id" or "name" (the column is never user input).
func tokenBy(ctx context.Context, tx *sqlx.Tx, column string, v any) (*RuntimeToken, error) {
	var r tokenRow
	err := tx.GetContext(ctx, &r, `SELECT id, name, created_at, created_by, revoked_at, last_used_at, instances_evicted, last_evicted_at
		FROM runtime_tokens WHERE `+column+` = ?`, v)
	if err != nil {
		return nil, notFound(err, "The runtime token")
	}
	return r.token()
}
