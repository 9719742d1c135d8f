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

// errBadRuntimeToken is the one answer for an unknown, malformed or revoked
// token: telling them apart would help only someone guessing tokens.
var errBadRuntimeToken = apperr.Unauthorizedf("The runtime token is missing, unknown or revoked.")

// RuntimeAuth is what the runtime API needs per request: which token, and
// which bundle is current (version 0 and ETag "" before the first publish).
type RuntimeAuth struct {
	TokenID        int64
	TokenName      string
	CurrentVersion int64
	CurrentETag    string
}

// AuthenticateRuntime checks a bearer token and reads the current bundle's
// version and ETag in one statement. It is the hot path of GET
// /api/v1/bundle (a fleet polling for 304s), so unlike other methods it runs
// one autocommit SELECT instead of a transaction: every transaction here is
// IMMEDIATE (see DSN) and would queue readers behind each other and behind
// writers for no benefit, since a single statement reads one snapshot.
func (db *DB) AuthenticateRuntime(ctx context.Context, token string) (*RuntimeAuth, error) {
	if len(token) < len(RuntimeTokenPrefix)+8 || len(token) > 200 {
		return nil, errBadRuntimeToken
	}
	var row struct {
		ID      int64  `db:"id"`
		Name    string `db:"name"`
		Revoked bool   `db:"revoked"`
		Version int64  `db:"version"`
		ETag    string `db:"etag"`
	}
	err := db.db.GetContext(ctx, &row, `SELECT t.id, t.name, t.revoked_at IS NOT NULL AS revoked,
			COALESCE(b.version, 0) AS version, COALESCE(b.etag, '') AS etag
		FROM runtime_tokens t
		LEFT JOIN (SELECT version, etag FROM bundles ORDER BY version DESC LIMIT 1) b ON 1 = 1
		WHERE t.token_hash = ?`, hashToken(token))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errBadRuntimeToken
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate runtime: %w", err)
	}
	if row.Revoked {
		return nil, errBadRuntimeToken
	}
	return &RuntimeAuth{TokenID: row.ID, TokenName: row.Name, CurrentVersion: row.Version, CurrentETag: row.ETag}, nil
}

// RuntimeFetch is one bundle fetch as a runtime described itself.
type RuntimeFetch struct {
	TokenID    int64
	InstanceID string // "" when the runtime sent none: only the token is touched
	Name       string
	Version    int64 // the bundle version it says it runs (0: none yet)
	RemoteAddr string
}

// RecordRuntimeFetch notes a fetch: the token's last use and the instance's
// row (created on first sight). It is not audited: it is a runtime
// reporting in, not a change anyone made, and a fleet polling every few
// seconds would bury the audit log. The caller rate-limits these writes.
func (db *DB) RecordRuntimeFetch(ctx context.Context, f RuntimeFetch) error {
	return db.inTx(ctx, "record runtime fetch", func(tx *sqlx.Tx) error {
		now := formatTime(db.Now())
		if _, err := tx.ExecContext(ctx, `UPDATE runtime_tokens SET last_used_at = ? WHERE id = ?`, now, f.TokenID); err != nil {
			return err
		}
		if f.InstanceID == "" {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO runtime_instances
				(instance_id, name, token_id, version, remote_addr, first_seen, last_seen)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (instance_id) DO UPDATE SET name = excluded.name, token_id = excluded.token_id,
				version = excluded.version, remote_addr = excluded.remote_addr, last_seen = excluded.last_seen`,
			f.InstanceID, f.Name, f.TokenID, f.Version, f.RemoteAddr, now, now)
		return err
	})
}

// RuntimeInstance is one runtime process seen fetching bundles.
type RuntimeInstance struct {
	InstanceID string
	Name       string
	TokenName  string
	Version    int64
	RemoteAddr string
	FirstSeen  time.Time
	LastSeen   time.Time
}

// ListRuntimeInstances returns every instance, most recently seen first.
func (db *DB) ListRuntimeInstances(ctx context.Context) ([]*RuntimeInstance, error) {
	var out []*RuntimeInstance
	err := db.readTx(ctx, "list runtime instances", func(tx *sqlx.Tx) error {
		var rows []struct {
			InstanceID string `db:"instance_id"`
			Name       string `db:"name"`
			TokenName  string `db:"token_name"`
			Version    int64  `db:"version"`
			RemoteAddr string `db:"remote_addr"`
			FirstSeen  string `db:"first_seen"`
			LastSeen   string `db:"last_seen"`
		}
		if err := tx.SelectContext(ctx, &rows, `SELECT i.instance_id, i.name, t.name AS token_name, i.version,
				i.remote_addr, i.first_seen, i.last_seen
			FROM runtime_instances i JOIN runtime_tokens t ON t.id = i.token_id
			ORDER BY i.last_seen DESC, i.name, i.instance_id`); err != nil {
			return err
		}
		for _, r := range rows {
			first, err := parseTime(r.FirstSeen)
			if err != nil {
				return err
			}
			last, err := parseTime(r.LastSeen)
			if err != nil {
				return err
			}
			out = append(out, &RuntimeInstance{InstanceID: r.InstanceID, Name: r.Name, TokenName: r.TokenName,
				Version: r.Version, RemoteAddr: r.RemoteAddr, FirstSeen: first, LastSeen: last})
		}
		return nil
	})
	return out, err
}
