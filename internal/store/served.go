package store

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
)

// What the bundle API and the Bundles page keep in memory, and the cheap
// reads that tell them when it is stale.
//
// Two signals, because the console may run as several processes on one
// database (or a CLI publishes next to it): localChanges counts commits made
// through this *DB, so a cache in the same process sees its own publish or
// revocation on the very next request at the cost of an atomic load; and
// small fingerprint queries (LatestBundleVersion, RuntimeTokensFingerprint,
// PublishGeneration) let a poller notice what another process committed.

// localChanges counts this process's committed changes, by what they change.
type localChanges struct {
	tokens  atomic.Uint64
	bundles atomic.Uint64
	// signal fires after each bundle or key change (changes.go).
	signal changeSignal
}

// LocalTokenChanges increases after every runtime token created or revoked
// through this DB.
func (db *DB) LocalTokenChanges() uint64 { return db.local.tokens.Load() }

// LocalBundleChanges increases after every bundle published or rolled back
// through this DB.
func (db *DB) LocalBundleChanges() uint64 { return db.local.bundles.Load() }

// ReadTransactions is how many read transactions this DB has begun, so
// that what an in-memory cache in front of it saves can be measured (one
// atomic add per read).
func (db *DB) ReadTransactions() uint64 { return db.reads.Load() }

// LatestBundleVersion is the highest published version, 0 before the first
// publish. It reads the end of the bundles b-tree and nothing of the row.
func (db *DB) LatestBundleVersion(ctx context.Context) (int64, error) {
	var v int64
	err := db.readTx(ctx, "latest bundle version", func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &v, `SELECT COALESCE(max(version), 0) FROM bundles`)
	})
	return v, err
}

// ServedBundle is one version as the bundle API serves it: the summary,
// the signed JWS and, for a v2 version, its v1 form (Downgrade), without
// the payload column (the canonical JSON again, which only the console's
// own diffs need).
func (db *DB) ServedBundle(ctx context.Context, version int64) (*BundleRecord, error) {
	var rec *BundleRecord
	err := db.readTx(ctx, "served bundle", func(tx *sqlx.Tx) error {
		var row bundleRow
		if err := tx.GetContext(ctx, &row, `SELECT version, '' AS payload, signed, etag, key_id, tool_count,
				issued_at, expires_at, published_by, note, rollback_of FROM bundles WHERE version = ?`, version); err != nil {
			return notFound(err, fmt.Sprintf("Bundle version %d", version))
		}
		var err error
		if rec, err = row.record(); err != nil {
			return err
		}
		rec.Downgrade, err = downgradeOf(ctx, tx, version, true)
		return err
	})
	return rec, err
}

// ActiveRuntimeToken is a runtime token the bundle API accepts, known by
// the SHA-256 of its value (HashRuntimeToken).
type ActiveRuntimeToken struct {
	ID   int64  `db:"id"`
	Name string `db:"name"`
	Hash string `db:"token_hash"`
}

// ActiveRuntimeTokens returns every unrevoked token and the fingerprint of
// the table they were read with (see RuntimeTokensFingerprint), from one
// snapshot.
func (db *DB) ActiveRuntimeTokens(ctx context.Context) ([]ActiveRuntimeToken, string, error) {
	var out []ActiveRuntimeToken
	var fp string
	err := db.readTx(ctx, "active runtime tokens", func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &out, `SELECT id, name, token_hash FROM runtime_tokens WHERE revoked_at IS NULL`); err != nil {
			return err
		}
		var err error
		fp, err = tokensFingerprint(ctx, tx)
		return err
	})
	return out, fp, err
}

// RuntimeTokensFingerprint changes whenever a token is created or revoked:
// tokens are never deleted or un-revoked, so the count, the highest id and
// the number revoked together only grow.
func (db *DB) RuntimeTokensFingerprint(ctx context.Context) (string, error) {
	var fp string
	err := db.readTx(ctx, "runtime tokens fingerprint", func(tx *sqlx.Tx) error {
		var err error
		fp, err = tokensFingerprint(ctx, tx)
		return err
	})
	return fp, err
}

func tokensFingerprint(ctx context.Context, tx *sqlx.Tx) (string, error) {
	var r struct {
		N       int64 `db:"n"`
		MaxID   int64 `db:"max_id"`
		Revoked int64 `db:"revoked"`
	}
	if err := tx.GetContext(ctx, &r, `SELECT count(*) AS n, COALESCE(max(id), 0) AS max_id, count(revoked_at) AS revoked
		FROM runtime_tokens`); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d/%d/%d", r.N, r.MaxID, r.Revoked), nil
}

// HashRuntimeToken is how a runtime token is stored and looked up; "" for a
// value that cannot be a token (wrong length), so callers refuse it without
// hashing attacker-sized input.
func HashRuntimeToken(token string) string {
	if !RuntimeTokenShapeOK(token) {
		return ""
	}
	return hashToken(token)
}

// RuntimeTokenShapeOK reports whether token has a runtime token's length;
// anything else is refused without hashing it.
func RuntimeTokenShapeOK(token string) bool {
	return len(token) >= len(RuntimeTokenPrefix)+8 && len(token) <= 200
}

// PublishGeneration changes whenever anything the next bundle is built
// from changes (sources, tools, policies, change requests, settings,
// bundles, approvers' emails, signing keys), in any process: triggers bump
// it in the writing transaction (migration 0010).
func (db *DB) PublishGeneration(ctx context.Context) (int64, error) {
	var n int64
	err := db.readTx(ctx, "publish generation", func(tx *sqlx.Tx) error {
		var err error
		n, err = publishGeneration(ctx, tx)
		return err
	})
	return n, err
}

func publishGeneration(ctx context.Context, tx *sqlx.Tx) (int64, error) {
	var n int64
	if err := tx.GetContext(ctx, &n, `SELECT n FROM publish_generation WHERE id = 1`); err != nil {
		return 0, fmt.Errorf("read publish generation: %w", err)
	}
	return n, nil
}

// LatestBundleSummary is LatestBundle without the signed and payload
// columns (empty), for pages that only show or compare the summary.
func (db *DB) LatestBundleSummary(ctx context.Context) (*BundleRecord, error) {
	var rec *BundleRecord
	err := db.readTx(ctx, "latest bundle summary", func(tx *sqlx.Tx) error {
		var row bundleRow
		if err := tx.GetContext(ctx, &row, `SELECT `+bundleSummaryColumns+` FROM bundles ORDER BY version DESC LIMIT 1`); err != nil {
			return notFound(err, "No bundle has been published yet; the bundle")
		}
		var err error
		rec, err = row.record()
		return err
	})
	return rec, err
}
