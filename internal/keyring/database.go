package keyring

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
)

// Database is the Keyring of the signing_keys table: private keys sealed
// under KEK, every change in one write transaction with its audit entry,
// the active key read at every publish. Every console sharing the
// database and the KEK signs with the same active key.
type Database struct {
	DB  *store.DB
	KEK KEK
}

// signingKeyAAD binds a sealed private key to its kid.
func signingKeyAAD(kid string) string { return "toolgate signing key " + kid }

// List implements Keyring.
func (d *Database) List(ctx context.Context) (string, []bundle.KeyInfo, error) {
	rows, err := d.DB.SigningKeys(ctx)
	if err != nil {
		return "", nil, err
	}
	var active string
	keys := make([]bundle.KeyInfo, 0, len(rows))
	for _, r := range rows {
		if r.Active {
			active = r.KeyID
		}
		keys = append(keys, bundle.KeyInfo{KeyID: r.KeyID, CreatedAt: r.CreatedAt, RetiredAt: r.RetiredAt, PublicKey: r.PublicKey})
	}
	return active, keys, nil
}

// Active implements Keyring: the active row, opened with the KEK and
// checked against its kid and stored public key.
func (d *Database) Active(ctx context.Context) (bundle.SigningKey, error) {
	row, err := d.DB.ActiveSigningKey(ctx)
	if apperr.CodeOf(err) == apperr.NotFound {
		return bundle.SigningKey{}, fmt.Errorf("database: %w", bundle.ErrNoActiveKey)
	}
	if err != nil {
		return bundle.SigningKey{}, err
	}
	return d.open(row)
}

func (d *Database) open(row store.StoredSigningKey) (bundle.SigningKey, error) {
	seed, err := d.KEK.Open(row.Sealed, signingKeyAAD(row.KeyID))
	if err != nil {
		return bundle.SigningKey{}, fmt.Errorf("load signing key %q: %w", row.KeyID, err)
	}
	if len(seed) != ed25519.SeedSize {
		return bundle.SigningKey{}, fmt.Errorf("load signing key %q: sealed key has %d bytes, want %d", row.KeyID, len(seed), ed25519.SeedSize)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	if bundle.KeyID(pub) != row.KeyID || !bytes.Equal(pub, row.PublicKey) {
		return bundle.SigningKey{}, fmt.Errorf("load signing key %q: the sealed key is another key's", row.KeyID)
	}
	return bundle.SigningKey{KeyID: row.KeyID, Private: priv, CreatedAt: row.CreatedAt}, nil
}

// PublicKeys implements Keyring.
func (d *Database) PublicKeys(ctx context.Context) (bundle.KeySet, error) {
	rows, err := d.DB.SigningKeys(ctx)
	if err != nil {
		return bundle.KeySet{}, err
	}
	var set bundle.KeySet
	for _, r := range rows {
		if r.RetiredAt == nil {
			set.Keys = append(set.Keys, bundle.PublicKey{KeyID: r.KeyID, Key: ed25519.PublicKey(r.PublicKey)})
		}
	}
	return set, nil
}

// seal turns a signing key into its stored row; only the 32-byte seed is
// sealed (the private key is derived from it).
func (d *Database) seal(k bundle.SigningKey) (store.StoredSigningKey, error) {
	sealed, err := d.KEK.Seal(k.Private.Seed(), signingKeyAAD(k.KeyID))
	if err != nil {
		return store.StoredSigningKey{}, fmt.Errorf("seal signing key %q: %w", k.KeyID, err)
	}
	return store.StoredSigningKey{KeyID: k.KeyID, PublicKey: k.Public().Key, Sealed: sealed, CreatedAt: k.CreatedAt}, nil
}

func (d *Database) add(ctx context.Context, actor, action string) (string, error) {
	k, err := bundle.GenerateKey(rand.Reader, d.DB.Now())
	if err != nil {
		return "", err
	}
	row, err := d.seal(k)
	if err != nil {
		return "", err
	}
	if err := d.DB.AddSigningKey(ctx, actor, action, row); err != nil {
		return "", err
	}
	return k.KeyID, nil
}

// EnsureActive implements Keyring. Two consoles starting at once on an
// empty database make one key: the second insert finds the first's.
func (d *Database) EnsureActive(ctx context.Context, actor string) (string, bool, error) {
	if k, err := d.DB.ActiveSigningKey(ctx); err == nil {
		_, err := d.open(k) // a wrong KEK shows at start, not at the first publish
		return k.KeyID, false, err
	} else if apperr.CodeOf(err) != apperr.NotFound {
		return "", false, err
	}
	kid, err := d.add(ctx, actor, store.KeyCreate)
	if errors.Is(err, store.ErrSigningKeyExists) {
		k, err := d.Active(ctx)
		return k.KeyID, false, err
	}
	if err != nil {
		return "", false, fmt.Errorf("signing key: %w", err)
	}
	return kid, true, nil
}

// Rotate implements Keyring.
func (d *Database) Rotate(ctx context.Context, actor string) (string, error) {
	return d.add(ctx, actor, store.KeyRotate)
}

// Retire implements Keyring.
func (d *Database) Retire(ctx context.Context, actor, kid string) error {
	return d.DB.RetireSigningKey(ctx, actor, kid)
}

// Import copies the keys of a key directory into the database, sealed
// under the KEK, each audited as key.import: the active key stays active
// (when the database has none), retired keys come as public keys only.
// Keys already in the database are skipped. It returns the kids imported.
func (d *Database) Import(ctx context.Context, actor string, dir bundle.KeyDir) ([]string, error) {
	active, keys, err := dir.List()
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, apperr.Invalidf("The key directory %s holds no signing key.", dir.Path)
	}
	have, err := d.DB.SigningKeys(ctx)
	if err != nil {
		return nil, err
	}
	var done []string
	for _, info := range keys {
		if containsKey(have, info.KeyID) {
			continue
		}
		row, err := d.importRow(dir, info, active)
		if err != nil {
			return done, err
		}
		if err := d.DB.AddSigningKey(ctx, actor, store.KeyImport, row); err != nil {
			return done, err
		}
		done = append(done, info.KeyID)
	}
	return done, nil
}

func (d *Database) importRow(dir bundle.KeyDir, info bundle.KeyInfo, active string) (store.StoredSigningKey, error) {
	if info.RetiredAt != nil {
		return store.StoredSigningKey{KeyID: info.KeyID, PublicKey: info.PublicKey, CreatedAt: info.CreatedAt, RetiredAt: info.RetiredAt}, nil
	}
	k, err := dir.Load(info.KeyID)
	if err != nil {
		return store.StoredSigningKey{}, err
	}
	row, err := d.seal(k)
	if err != nil {
		return store.StoredSigningKey{}, err
	}
	row.Active = info.KeyID == active
	return row, nil
}

func containsKey(rows []store.StoredSigningKey, kid string) bool {
	for _, r := range rows {
		if r.KeyID == kid {
			return true
		}
	}
	return false
}
