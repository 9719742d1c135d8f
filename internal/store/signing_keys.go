package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
)

// KeyImport is the audit action of a signing key moved from a key directory
// into the database (`toolgate keys import`).
const KeyImport = "key.import"

// StoredSigningKey is one row of signing_keys: a bundle signing key whose
// private half is sealed under the consoles' key-encryption key
// (internal/keyring seals and opens it; the store never sees it in clear).
type StoredSigningKey struct {
	KeyID string
	// PublicKey is the raw 32-byte Ed25519 public key.
	PublicKey []byte
	// Sealed is the sealed private key; "" once the key is retired.
	Sealed    string
	Active    bool
	CreatedAt time.Time
	RetiredAt *time.Time
}

// String names the key by its kid only, so a row printed by mistake never
// shows even the sealed form.
func (k StoredSigningKey) String() string { return "StoredSigningKey(" + k.KeyID + ")" }

type signingKeyRow struct {
	KeyID     string         `db:"kid"`
	Seq       int64          `db:"seq"`
	PublicKey string         `db:"public_key"`
	Sealed    sql.NullString `db:"sealed_private"`
	Active    int            `db:"active"`
	CreatedAt string         `db:"created_at"`
	RetiredAt sql.NullString `db:"retired_at"`
}

func (r signingKeyRow) key() (StoredSigningKey, error) {
	pub, err := decodeKeyBytes(r.PublicKey)
	if err != nil {
		return StoredSigningKey{}, fmt.Errorf("signing key %s: public key: %w", r.KeyID, err)
	}
	k := StoredSigningKey{KeyID: r.KeyID, PublicKey: pub, Sealed: r.Sealed.String, Active: r.Active == 1}
	if k.CreatedAt, err = parseTime(r.CreatedAt); err != nil {
		return StoredSigningKey{}, err
	}
	if r.RetiredAt.Valid {
		t, err := parseTime(r.RetiredAt.String)
		if err != nil {
			return StoredSigningKey{}, err
		}
		k.RetiredAt = &t
	}
	return k, nil
}

// ErrSigningKeyExists is returned by AddSigningKey with KeyCreate when the
// database holds a key already: another console created the first key.
var ErrSigningKeyExists = errors.New("a signing key exists already")

// SigningKeys returns every signing key in the database, oldest first.
func (db *DB) SigningKeys(ctx context.Context) ([]StoredSigningKey, error) {
	var out []StoredSigningKey
	err := db.readTx(ctx, "signing keys", func(tx *sqlx.Tx) error {
		var err error
		out, err = signingKeys(ctx, tx, `SELECT * FROM signing_keys ORDER BY seq`)
		return err
	})
	return out, err
}

// ActiveSigningKey returns the key that signs now; NotFound before the
// first key. It is read at every publish, so a rotation made by another
// console is used at the next one.
func (db *DB) ActiveSigningKey(ctx context.Context) (StoredSigningKey, error) {
	var out []StoredSigningKey
	err := db.readTx(ctx, "active signing key", func(tx *sqlx.Tx) error {
		var err error
		out, err = signingKeys(ctx, tx, `SELECT * FROM signing_keys WHERE active = 1`)
		return err
	})
	if err == nil && len(out) == 0 {
		err = apperr.NotFoundf("There is no active signing key in the database yet.")
	}
	if err != nil {
		return StoredSigningKey{}, err
	}
	return out[0], nil
}

func signingKeys(ctx context.Context, tx *sqlx.Tx, q string, args ...any) ([]StoredSigningKey, error) {
	var rows []signingKeyRow
	if err := tx.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, fmt.Errorf("read signing keys: %w", err)
	}
	out := make([]StoredSigningKey, 0, len(rows))
	for _, r := range rows {
		k, err := r.key()
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// AddSigningKey stores k and audits it as action, in one transaction:
//   - KeyCreate (first start): k becomes active, unless a key exists already
//     (ErrSigningKeyExists: two consoles starting at once make one key);
//   - KeyRotate: k becomes the active key, the previous one stays published;
//   - KeyImport: k is added as it is (active only when k.Active and no key
//     is active yet), for an installation moving its key directory in.
func (db *DB) AddSigningKey(ctx context.Context, actor, action string, k StoredSigningKey) error {
	if k.KeyID == "" || len(k.PublicKey) == 0 || (k.Sealed == "" && k.RetiredAt == nil) {
		return apperr.Invalidf("A signing key needs a key id, a public key and its sealed private key.")
	}
	return db.keyChangeTx(ctx, action, func(tx *sqlx.Tx) error {
		var n, active int
		if err := tx.GetContext(ctx, &n, `SELECT COUNT(*) FROM signing_keys`); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &active, `SELECT COUNT(*) FROM signing_keys WHERE active = 1`); err != nil {
			return err
		}
		var before any
		switch action {
		case KeyCreate:
			if n > 0 {
				return ErrSigningKeyExists
			}
			k.Active = true
		case KeyRotate:
			if _, err := tx.ExecContext(ctx, `UPDATE signing_keys SET active = 0 WHERE active = 1`); err != nil {
				return err
			}
			k.Active, before = true, map[string]bool{"had_active": active > 0}
		case KeyImport:
			k.Active = k.Active && active == 0 && k.RetiredAt == nil
		default:
			return apperr.Invalidf("Unknown key action %q.", action)
		}
		if err := insertSigningKey(ctx, tx, k); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: action, Subject: "key:" + k.KeyID,
			Before: auditJSON(before), After: auditJSON(map[string]any{"kid": k.KeyID, "active": k.Active,
				"retired": k.RetiredAt != nil, "where": "database"})})
	})
}

func insertSigningKey(ctx context.Context, tx *sqlx.Tx, k StoredSigningKey) error {
	var sealed, retired any
	if k.RetiredAt == nil {
		sealed = k.Sealed
	} else {
		retired = formatTime(*k.RetiredAt)
	}
	active := 0
	if k.Active {
		active = 1
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO signing_keys (kid, seq, public_key, sealed_private, active, created_at, retired_at)
		VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM signing_keys), ?, ?, ?, ?, ?)`, k.KeyID, encodeKeyBytes(k.PublicKey), sealed, active, formatTime(k.CreatedAt), retired)
	if err != nil {
		return fmt.Errorf("insert signing key %s: %w", k.KeyID, err)
	}
	return nil
}

// RetireSigningKey stops publishing a key that is not active and deletes
// its sealed private key, audited as key.retire. The key that signed the
// current bundle cannot be retired: runtimes fetching that bundle would
// find no key to verify it with. The checks run inside the write
// transaction, so two consoles cannot race past them.
func (db *DB) RetireSigningKey(ctx context.Context, actor, kid string) error {
	return db.keyChangeTx(ctx, KeyRetire, func(tx *sqlx.Tx) error {
		keys, err := signingKeys(ctx, tx, `SELECT * FROM signing_keys WHERE kid = ?`, kid)
		if err != nil {
			return err
		}
		switch {
		case len(keys) == 0:
			return apperr.NotFoundf("There is no signing key %q.", kid)
		case keys[0].Active:
			return apperr.Conflictf("The active key cannot be retired: rotate first.")
		case keys[0].RetiredAt != nil:
			return apperr.Conflictf("The key %s is retired already.", kid)
		}
		cur, err := latestBundle(ctx, tx)
		if err == nil && cur.KeyID == kid {
			return apperr.Conflictf("The current bundle v%d is signed with %s: publish with the new key first, then retire it.", cur.Version, kid)
		} else if err != nil && apperr.CodeOf(err) != apperr.NotFound {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE signing_keys SET retired_at = ?, sealed_private = NULL WHERE kid = ?`,
			formatTime(db.Now()), kid); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: KeyRetire, Subject: "key:" + kid,
			Before: auditJSON(map[string]bool{"published": true}), After: auditJSON(map[string]bool{"published": false})})
	})
}
