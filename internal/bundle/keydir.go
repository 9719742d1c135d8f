package bundle

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// ErrNoActiveKey is returned by KeyDir.Active before any key was created.
var ErrNoActiveKey = errors.New("no active signing key")

// KeyDir keeps the signing keys in a directory of the data directory:
//
//	<Path>/            mode 0700
//	  keys.json        which key is active, every key's created/retired time
//	  <kid>.pem        one Ed25519 private key each, PKCS #8 PEM, mode 0600
//
// Private keys live in files rather than in the database so that a database
// copy (backups, support bundles) never carries the ability to sign, and so
// that an operator can protect them with ordinary file permissions. PKCS #8
// PEM is what openssl and every crypto library read. A retired key's private
// file is deleted; its entry stays in keys.json as history.
//
// KeyDir does not lock: callers serialize changes (one console process, or
// the CLI while the console is stopped).
type KeyDir struct {
	Path string
}

// KeyInfo is one entry of keys.json.
type KeyInfo struct {
	KeyID     string     `json:"kid"`
	CreatedAt time.Time  `json:"created_at"`
	RetiredAt *time.Time `json:"retired_at,omitempty"`
	// PublicKey is the raw 32-byte Ed25519 key, so retired keys stay known.
	PublicKey ed25519.PublicKey `json:"public_key"`
}

// keyIndex is the content of keys.json.
type keyIndex struct {
	Active string    `json:"active"`
	Keys   []KeyInfo `json:"keys"`
}

const (
	indexFile   = "keys.json"
	dirMode     = 0o700
	privateMode = 0o600
)

// List returns every key ever created here, oldest first, and the active kid.
func (d KeyDir) List() (active string, keys []KeyInfo, err error) {
	idx, err := d.readIndex()
	if err != nil {
		return "", nil, err
	}
	return idx.Active, idx.Keys, nil
}

// Active loads the key that signs bundles now.
func (d KeyDir) Active() (SigningKey, error) {
	idx, err := d.readIndex()
	if err != nil {
		return SigningKey{}, err
	}
	if idx.Active == "" {
		return SigningKey{}, fmt.Errorf("key directory %s: %w", d.Path, ErrNoActiveKey)
	}
	return d.loadPrivate(idx, idx.Active)
}

// Load loads the private key kid: the active key or a published one (a
// retired key's private file is gone). `toolgate keys import` uses it.
func (d KeyDir) Load(kid string) (SigningKey, error) {
	idx, err := d.readIndex()
	if err != nil {
		return SigningKey{}, err
	}
	return d.loadPrivate(idx, kid)
}

// EnsureActive returns the active key, creating the directory and a first key
// when there is none (first start). created reports whether a key was made,
// so the caller can audit it.
func (d KeyDir) EnsureActive(rand io.Reader, now time.Time) (k SigningKey, created bool, err error) {
	k, err = d.Active()
	if err == nil {
		return k, false, nil
	}
	if !errors.Is(err, ErrNoActiveKey) {
		return SigningKey{}, false, err
	}
	k, err = d.Rotate(rand, now)
	if err != nil {
		return SigningKey{}, false, err
	}
	return k, true, nil
}

// Rotate creates a new key and makes it the active one. The previous keys
// stay in PublicKeys until retired, so runtimes holding a bundle signed by
// them keep verifying during the change-over.
func (d KeyDir) Rotate(rand io.Reader, now time.Time) (SigningKey, error) {
	// Chmod as well: MkdirAll leaves an existing directory's mode alone.
	if err := os.MkdirAll(d.Path, dirMode); err != nil {
		return SigningKey{}, fmt.Errorf("rotate signing key: %w", err)
	}
	if err := os.Chmod(d.Path, dirMode); err != nil {
		return SigningKey{}, fmt.Errorf("rotate signing key: %w", err)
	}
	idx, err := d.readIndex()
	if err != nil {
		return SigningKey{}, fmt.Errorf("rotate signing key: %w", err)
	}
	k, err := GenerateKey(rand, now)
	if err != nil {
		return SigningKey{}, fmt.Errorf("rotate signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k.Private)
	if err != nil {
		return SigningKey{}, fmt.Errorf("rotate signing key: %w", err)
	}
	// The private key is written before the index names it, so a crash
	// leaves at worst an unused file, never an active kid without its key.
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	if err := writeAtomic(d.privatePath(k.KeyID), pemBytes); err != nil {
		return SigningKey{}, fmt.Errorf("rotate signing key: %w", err)
	}
	idx.Active = k.KeyID
	idx.Keys = append(idx.Keys, KeyInfo{KeyID: k.KeyID, CreatedAt: k.CreatedAt, PublicKey: k.Public().Key})
	if err := d.writeIndex(idx); err != nil {
		return SigningKey{}, fmt.Errorf("rotate signing key: %w", err)
	}
	return k, nil
}

// Retire stops publishing a key and deletes its private file. The active
// key cannot be retired (rotate first).
func (d KeyDir) Retire(kid string, now time.Time) error {
	idx, err := d.readIndex()
	if err != nil {
		return fmt.Errorf("retire key %q: %w", kid, err)
	}
	i := slices.IndexFunc(idx.Keys, func(k KeyInfo) bool { return k.KeyID == kid })
	switch {
	case i < 0:
		return fmt.Errorf("retire key %q: no such key", kid)
	case kid == idx.Active:
		return fmt.Errorf("retire key %q: it is the active key; rotate first", kid)
	case idx.Keys[i].RetiredAt != nil:
		return fmt.Errorf("retire key %q: already retired", kid)
	}
	at := wholeSecondUTC(now)
	idx.Keys[i].RetiredAt = &at
	if err := d.writeIndex(idx); err != nil {
		return fmt.Errorf("retire key %q: %w", kid, err)
	}
	if err := os.Remove(d.privatePath(kid)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("retire key %q: %w", kid, err)
	}
	return nil
}

// PublicKeys returns the keys runtimes should trust: every key not retired,
// the active one included.
func (d KeyDir) PublicKeys() (KeySet, error) {
	idx, err := d.readIndex()
	if err != nil {
		return KeySet{}, err
	}
	var set KeySet
	for _, k := range idx.Keys {
		if k.RetiredAt == nil {
			set.Keys = append(set.Keys, PublicKey{KeyID: k.KeyID, Key: k.PublicKey})
		}
	}
	return set, nil
}

func (d KeyDir) privatePath(kid string) string { return filepath.Join(d.Path, kid+".pem") }

// readIndex returns an empty index when the directory or file does not exist
// yet (before the first key).
func (d KeyDir) readIndex() (keyIndex, error) {
	data, err := os.ReadFile(filepath.Join(d.Path, indexFile))
	if errors.Is(err, fs.ErrNotExist) {
		return keyIndex{}, nil
	}
	if err != nil {
		return keyIndex{}, fmt.Errorf("key directory: %w", err)
	}
	var idx keyIndex
	if err := json.Unmarshal(data, &idx); err != nil {
		return keyIndex{}, fmt.Errorf("key directory: reading %s: %w", indexFile, err)
	}
	return idx, nil
}

func (d KeyDir) writeIndex(idx keyIndex) error {
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", indexFile, err)
	}
	return writeAtomic(filepath.Join(d.Path, indexFile), append(data, '\n'))
}

// loadPrivate reads a private key file, refusing one that group or others
// can read or write: a key that may have been copied can no longer be
// trusted to be the console's alone.
func (d KeyDir) loadPrivate(idx keyIndex, kid string) (SigningKey, error) {
	path := d.privatePath(kid)
	info, err := os.Stat(path)
	if err != nil {
		return SigningKey{}, fmt.Errorf("load signing key %q: %w", kid, err)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return SigningKey{}, fmt.Errorf("load signing key %q: %s has mode %04o; it must be readable by its owner only (chmod 600 %s)", kid, path, perm, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return SigningKey{}, fmt.Errorf("load signing key %q: %w", kid, err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return SigningKey{}, fmt.Errorf("load signing key %q: %s is not a PEM \"PRIVATE KEY\"", kid, path)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return SigningKey{}, fmt.Errorf("load signing key %q: %w", kid, err)
	}
	priv, ok := parsed.(ed25519.PrivateKey)
	if !ok {
		return SigningKey{}, fmt.Errorf("load signing key %q: want an Ed25519 key, got %T", kid, parsed)
	}
	if got := KeyID(priv.Public().(ed25519.PublicKey)); got != kid {
		return SigningKey{}, fmt.Errorf("load signing key %q: the file holds key %q", kid, got)
	}
	k := SigningKey{KeyID: kid, Private: priv}
	if i := slices.IndexFunc(idx.Keys, func(e KeyInfo) bool { return e.KeyID == kid }); i >= 0 {
		k.CreatedAt = idx.Keys[i].CreatedAt
	}
	return k, nil
}

// writeAtomic writes data to path with mode 0600 through a temporary file in
// the same directory and a rename, so a reader never sees half a key. The
// directory is synced after the rename: Rotate's promise that the key file
// exists before the index names it must hold across a power loss too, and
// only a directory sync makes a rename durable in order.
func writeAtomic(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(privateMode); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		_ = dir.Sync() // best effort: not every file system can sync a directory
		_ = dir.Close()
	}
	return nil
}
