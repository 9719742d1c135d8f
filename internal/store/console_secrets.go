package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// ConsoleSecret returns the sealed secret stored under name, creating it
// with create when there is none. Two consoles starting at once both call
// create, but only the first insert wins (ON CONFLICT DO NOTHING) and both
// return the stored value, so every instance ends up with the same secret.
// The store keeps the sealed form only; internal/keyring seals and opens.
func (db *DB) ConsoleSecret(ctx context.Context, name string, create func() (string, error)) (string, error) {
	var sealed string
	err := db.readTx(ctx, "console secret", func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &sealed, `SELECT sealed FROM console_secrets WHERE name = ?`, name)
	})
	if err == nil {
		return sealed, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	fresh, err := create()
	if err != nil {
		return "", fmt.Errorf("console secret %s: %w", name, err)
	}
	err = db.inTx(ctx, "create console secret", func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO console_secrets (name, sealed, created_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO NOTHING`, name, fresh, formatTime(db.Now())); err != nil {
			return err
		}
		return tx.GetContext(ctx, &sealed, `SELECT sealed FROM console_secrets WHERE name = ?`, name)
	})
	return sealed, err
}

// SealedConsoleSecrets returns every stored console secret, sealed, by
// name (for checking a key-encryption key against them).
func (db *DB) SealedConsoleSecrets(ctx context.Context) (map[string]string, error) {
	var rows []struct {
		Name   string `db:"name"`
		Sealed string `db:"sealed"`
	}
	err := db.readTx(ctx, "console secrets", func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &rows, `SELECT name, sealed FROM console_secrets ORDER BY name`)
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.Name] = r.Sealed
	}
	return out, nil
}

// encodeKeyBytes is how raw key bytes are stored in TEXT columns (portable
// across engines, unlike BLOB/BYTEA): base64url without padding.
func encodeKeyBytes(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func decodeKeyBytes(s string) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("stored key bytes: %w", err)
	}
	return b, nil
}
