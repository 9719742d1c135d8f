package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/bundle"
)

// BundleDowngrade is the toolgate.bundle/v1 form of a version published as
// v2 (bundle.DowngradeV1), signed with it: what the bundle API serves to a
// runtime that reads only v1 (bundle doc.go, "Rolling upgrade").
type BundleDowngrade struct {
	Version   int64  `db:"version"`
	ETag      string `db:"etag"`
	ToolCount int    `db:"tool_count"`
	// Withheld is how many tools of the version it leaves out.
	Withheld int    `db:"withheld"`
	Signed   string `db:"signed"`
}

// signDowngrade signs the v1 form of b when b is v2; nil when b is v1
// (every runtime reads it as it is).
func signDowngrade(b *bundle.Bundle, key bundle.SigningKey) (*BundleDowngrade, error) {
	if b.Schema == bundle.SchemaV1 {
		return nil, nil
	}
	d, withheld := bundle.DowngradeV1(b)
	signed, err := bundle.Sign(d, key)
	if err != nil {
		return nil, fmt.Errorf("sign the %s form: %w", bundle.SchemaV1, err)
	}
	return &BundleDowngrade{Version: b.Version, ETag: BundleETag(signed), ToolCount: len(d.Tools),
		Withheld: len(withheld), Signed: string(signed)}, nil
}

// insertDowngrade stores r's downgrade, if it has one.
func insertDowngrade(ctx context.Context, tx *sqlx.Tx, r *BundleRecord) error {
	d := r.Downgrade
	if d == nil {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO bundle_downgrades (version, etag, tool_count, withheld, signed)
		VALUES (?, ?, ?, ?, ?)`, d.Version, d.ETag, d.ToolCount, d.Withheld, d.Signed); err != nil {
		return fmt.Errorf("insert bundle v%d: %s form: %w", r.Version, bundle.SchemaV1, err)
	}
	return nil
}

// downgradeOf reads a version's downgrade, its signed bytes only when
// signed; nil when it has none.
func downgradeOf(ctx context.Context, tx *sqlx.Tx, version int64, signed bool) (*BundleDowngrade, error) {
	col := "''"
	if signed {
		col = "signed"
	}
	var d BundleDowngrade
	err := tx.GetContext(ctx, &d, `SELECT version, etag, tool_count, withheld, `+col+` AS signed FROM bundle_downgrades WHERE version = ?`, version)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bundle v%d: %s form: %w", version, bundle.SchemaV1, err)
	}
	return &d, nil
}

// V1Form is a version's downgrade without its signed bytes, for pages;
// nil when the version has none.
func (db *DB) V1Form(ctx context.Context, version int64) (*BundleDowngrade, error) {
	var d *BundleDowngrade
	err := db.readTx(ctx, "bundle v1 form", func(tx *sqlx.Tx) error {
		var err error
		d, err = downgradeOf(ctx, tx, version, false)
		return err
	})
	return d, err
}
