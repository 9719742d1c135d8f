package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/bundle"
)

// BundleRecord is one published bundle as stored. Published bundles never
// change (a trigger refuses UPDATE); a rollback is a new record.
type BundleRecord struct {
	Version int64
	// Payload is the canonical JSON inside Signed; Signed is the JWS exactly
	// as runtimes receive it. Both are empty in listings (ListBundles).
	Payload     []byte
	Signed      string
	ETag        string // strong ETag, quoted: "\"<hex sha-256 of Signed>\""
	KeyID       string
	ToolCount   int
	IssuedAt    time.Time
	ExpiresAt   time.Time
	PublishedBy string
	Note        string
	RollbackOf  int64 // 0 unless this version republished an older one
	// Withheld are the tools the publish or rollback left out (R14),
	// filled by ListBundles and when publishing.
	Withheld []WithheldTool
	// Downgrade is the v1 form of a v2 version (nil for a v1 version),
	// filled by ServedBundle and when publishing.
	Downgrade *BundleDowngrade
}

// Bundle decodes the payload. It is trusted content (this console wrote
// it), so no signature check is needed here.
func (r *BundleRecord) Bundle() (*bundle.Bundle, error) {
	var b bundle.Bundle
	if err := json.Unmarshal(r.Payload, &b); err != nil {
		return nil, fmt.Errorf("decode bundle v%d: %w", r.Version, err)
	}
	return &b, nil
}

type bundleRow struct {
	Version     int64         `db:"version"`
	Payload     []byte        `db:"payload"`
	Signed      string        `db:"signed"`
	ETag        string        `db:"etag"`
	KeyID       string        `db:"key_id"`
	ToolCount   int           `db:"tool_count"`
	IssuedAt    string        `db:"issued_at"`
	ExpiresAt   string        `db:"expires_at"`
	PublishedBy string        `db:"published_by"`
	Note        string        `db:"note"`
	RollbackOf  sql.NullInt64 `db:"rollback_of"`
}

func (r bundleRow) record() (*BundleRecord, error) {
	issued, err := parseTime(r.IssuedAt)
	if err != nil {
		return nil, err
	}
	expires, err := parseTime(r.ExpiresAt)
	if err != nil {
		return nil, err
	}
	return &BundleRecord{Version: r.Version, Payload: r.Payload, Signed: r.Signed, ETag: r.ETag, KeyID: r.KeyID,
		ToolCount: r.ToolCount, IssuedAt: issued, ExpiresAt: expires, PublishedBy: r.PublishedBy, Note: r.Note,
		RollbackOf: r.RollbackOf.Int64}, nil
}

// BundleETag is the strong ETag of a signed bundle: the quoted hex SHA-256
// of the exact bytes served, so equal tags always mean equal bodies.
func BundleETag(signed []byte) string {
	sum := sha256.Sum256(signed)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

const bundleSummaryColumns = `version, '' AS payload, '' AS signed, etag, key_id, tool_count,
	issued_at, expires_at, published_by, note, rollback_of`

// LatestBundle returns the current (highest) version, or NotFound before
// the first publish.
func (db *DB) LatestBundle(ctx context.Context) (*BundleRecord, error) {
	var rec *BundleRecord
	err := db.readTx(ctx, "latest bundle", func(tx *sqlx.Tx) error {
		var err error
		rec, err = latestBundle(ctx, tx)
		return err
	})
	return rec, err
}

func latestBundle(ctx context.Context, tx *sqlx.Tx) (*BundleRecord, error) {
	var row bundleRow
	if err := tx.GetContext(ctx, &row, `SELECT * FROM bundles ORDER BY version DESC LIMIT 1`); err != nil {
		return nil, notFound(err, "No bundle has been published yet; the bundle")
	}
	return row.record()
}

// BundleByVersion returns one published version with its payload and JWS.
func (db *DB) BundleByVersion(ctx context.Context, version int64) (*BundleRecord, error) {
	var rec *BundleRecord
	err := db.readTx(ctx, "bundle by version", func(tx *sqlx.Tx) error {
		var err error
		rec, err = bundleByVersion(ctx, tx, version)
		return err
	})
	return rec, err
}

func bundleByVersion(ctx context.Context, tx *sqlx.Tx, version int64) (*BundleRecord, error) {
	var row bundleRow
	if err := tx.GetContext(ctx, &row, `SELECT * FROM bundles WHERE version = ?`, version); err != nil {
		return nil, notFound(err, fmt.Sprintf("Bundle version %d", version))
	}
	return row.record()
}

// ListBundles returns the history, newest first, without payloads.
func (db *DB) ListBundles(ctx context.Context) ([]*BundleRecord, error) {
	var out []*BundleRecord
	err := db.readTx(ctx, "list bundles", func(tx *sqlx.Tx) error {
		var rows []bundleRow
		if err := tx.SelectContext(ctx, &rows, `SELECT `+bundleSummaryColumns+` FROM bundles ORDER BY version DESC`); err != nil {
			return err
		}
		withheld, err := withheldByVersion(ctx, tx)
		if err != nil {
			return err
		}
		for _, r := range rows {
			rec, err := r.record()
			if err != nil {
				return err
			}
			rec.Withheld = withheld[rec.Version]
			out = append(out, rec)
		}
		return nil
	})
	return out, err
}

// withheldByVersion reads every version's withheld tools, by tool name.
func withheldByVersion(ctx context.Context, tx *sqlx.Tx) (map[int64][]WithheldTool, error) {
	var rows []struct {
		Version int64 `db:"version"`
		WithheldTool
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT version, tool, reason FROM bundle_withheld ORDER BY version, tool`); err != nil {
		return nil, fmt.Errorf("withheld tools: %w", err)
	}
	out := map[int64][]WithheldTool{}
	for _, r := range rows {
		out[r.Version] = append(out[r.Version], r.WithheldTool)
	}
	return out, nil
}

// insertWithheld records the tools version r left out.
func insertWithheld(ctx context.Context, tx *sqlx.Tx, r *BundleRecord) error {
	for _, w := range r.Withheld {
		if _, err := tx.ExecContext(ctx, `INSERT INTO bundle_withheld (version, tool, reason) VALUES (?, ?, ?)`,
			r.Version, w.Tool, w.Reason); err != nil {
			return fmt.Errorf("insert bundle v%d: withheld %s: %w", r.Version, w.Tool, err)
		}
	}
	return nil
}

// insertBundle stores a signed bundle; the caller audits it in the same tx.
// A bundle signed with a key that another console retired after this one
// read it is refused: runtimes would find no key to verify it with. (Keys
// kept in files are not in signing_keys; their console serialises signing
// and retiring itself.)
func insertBundle(ctx context.Context, tx *sqlx.Tx, r *BundleRecord) error {
	var retired int
	if err := tx.GetContext(ctx, &retired, `SELECT COUNT(*) FROM signing_keys WHERE kid = ? AND retired_at IS NOT NULL`, r.KeyID); err != nil {
		return fmt.Errorf("insert bundle v%d: signing key: %w", r.Version, err)
	}
	if retired > 0 {
		return apperr.Conflictf("The signing key %s was retired while this bundle was being signed. Publish again.", r.KeyID)
	}
	var rollback any
	if r.RollbackOf != 0 {
		rollback = r.RollbackOf
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO bundles
		(version, payload, signed, etag, key_id, tool_count, issued_at, expires_at, published_by, note, rollback_of)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Version, r.Payload, r.Signed, r.ETag, r.KeyID, r.ToolCount, formatTime(r.IssuedAt), formatTime(r.ExpiresAt),
		r.PublishedBy, r.Note, rollback)
	if err != nil {
		return fmt.Errorf("insert bundle v%d: %w", r.Version, err)
	}
	return nil
}

// Key change actions recorded in the audit log.
const (
	KeyCreate = "key.create"
	KeyRotate = "key.rotate"
	KeyRetire = "key.retire"
)

// KeyChange is a change of the signing keys kept in files (bundle.KeyDir,
// keyring.Files); keys kept in this database change through AddSigningKey
// and RetireSigningKey.
type KeyChange struct {
	Actor  string
	Action string // KeyCreate, KeyRotate or KeyRetire
	// Apply makes the change on disk and returns the kid it concerns (the
	// new key for create/rotate, the retired one for retire) and the
	// before/after states to record.
	Apply func() (kid string, before, after any, err error)
}

// RecordKeyChange runs the change and appends its audit entry in one
// transaction. The file change happens first, inside the transaction, so
// the log records what actually happened: if Apply fails nothing is
// audited; the write lock held meanwhile keeps the entry in order.
func (db *DB) RecordKeyChange(ctx context.Context, kc KeyChange) error {
	switch kc.Action {
	case KeyCreate, KeyRotate, KeyRetire:
	default:
		return apperr.Invalidf("Unknown key action %q.", kc.Action)
	}
	return db.keyChangeTx(ctx, kc.Action, func(tx *sqlx.Tx) error {
		kid, before, after, err := kc.Apply()
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: kc.Actor, Action: kc.Action, Subject: "key:" + kid,
			Before: auditJSON(before), After: auditJSON(after)})
	})
}
