package runtime

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/toolgate/toolgate/internal/bundle"
)

// Files of a runtime's state directory (DATA_DIR/runtime). They are what
// lets a restarted runtime serve while the console is down.
const (
	bundleFile      = "bundle.jws"        // the last good signed bundle, exactly as received
	bundleMetaFile  = "bundle.meta.json"  // its ETag and when the console last confirmed it
	trustedKeysFile = "trusted-keys.json" // JWKS fetched once under --trust-on-first-use
	instanceIDFile  = "instance-id"       // stable across restarts, for the fleet view
)

// disk is the runtime's state directory.
type disk struct{ dir string }

// bundleMeta is what a runtime remembers about its bundle besides the JWS.
type bundleMeta struct {
	ETag        string    `json:"etag"`
	Version     int64     `json:"version"`
	ConfirmedAt time.Time `json:"confirmed_at"`
}

func (d disk) path(name string) string { return filepath.Join(d.dir, name) }

func (d disk) ensure() error {
	if err := os.MkdirAll(d.dir, 0o700); err != nil {
		return fmt.Errorf("runtime state directory: %w", err)
	}
	return nil
}

// writeAtomic replaces name with data so that a crash leaves either the old
// or the new file, never a torn one: write a temporary file in the same
// directory, fsync it, rename it over the old one, fsync the directory.
func (d disk) writeAtomic(name string, data []byte) error {
	tmp, err := os.CreateTemp(d.dir, "."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), d.path(name)); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if dir, err := os.Open(d.dir); err == nil {
		_ = dir.Sync() // best effort: not every file system can sync a directory
		dir.Close()
	}
	return nil
}

// loadBundle returns the persisted signed bundle and its metadata; ok is
// false when none was ever saved. A missing or unreadable meta file is not
// an error: the caller falls back to the bundle's issue time.
func (d disk) loadBundle() (signed []byte, meta bundleMeta, ok bool, err error) {
	signed, err = os.ReadFile(d.path(bundleFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, meta, false, nil
	}
	if err != nil {
		return nil, meta, false, fmt.Errorf("reading the persisted bundle: %w", err)
	}
	if raw, err := os.ReadFile(d.path(bundleMetaFile)); err == nil {
		_ = json.Unmarshal(raw, &meta) // a torn meta only costs one full fetch
	}
	return signed, meta, true, nil
}

// saveBundle persists the bundle first, then its metadata: a crash in
// between leaves a good bundle with old metadata, whose only effect is an
// unconditional fetch at the next start.
func (d disk) saveBundle(signed []byte, meta bundleMeta) error {
	if err := d.writeAtomic(bundleFile, signed); err != nil {
		return err
	}
	return d.saveMeta(meta)
}

func (d disk) saveMeta(meta bundleMeta) error {
	raw, err := json.Marshal(meta)
	if err != nil {
		return fmt.Errorf("encoding bundle metadata: %w", err)
	}
	return d.writeAtomic(bundleMetaFile, raw)
}

// loadTrustedKeys returns the key set trusted on first use, ok false when
// there is none yet.
func (d disk) loadTrustedKeys() (bundle.KeySet, bool, error) {
	raw, err := os.ReadFile(d.path(trustedKeysFile))
	if errors.Is(err, fs.ErrNotExist) {
		return bundle.KeySet{}, false, nil
	}
	if err != nil {
		return bundle.KeySet{}, false, fmt.Errorf("reading trusted keys: %w", err)
	}
	keys, err := bundle.ParseKeySet(raw)
	if err != nil {
		return bundle.KeySet{}, false, fmt.Errorf("%s: %w", d.path(trustedKeysFile), err)
	}
	return keys, true, nil
}

func (d disk) saveTrustedKeys(keys bundle.KeySet) error {
	raw, err := json.Marshal(keys)
	if err != nil {
		return fmt.Errorf("encoding trusted keys: %w", err)
	}
	return d.writeAtomic(trustedKeysFile, raw)
}

// instanceID returns the runtime's instance id, creating it on first start
// so that the console's fleet view keeps one row per runtime across restarts.
func (d disk) instanceID() (string, error) {
	raw, err := os.ReadFile(d.path(instanceIDFile))
	if err == nil {
		if id, perr := uuid.Parse(strings.TrimSpace(string(raw))); perr == nil {
			return id.String(), nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("reading the instance id: %w", err)
	}
	id, err := uuid.NewRandomFromReader(rand.Reader)
	if err != nil {
		return "", fmt.Errorf("creating the instance id: %w", err)
	}
	if err := d.writeAtomic(instanceIDFile, []byte(id.String()+"\n")); err != nil {
		return "", err
	}
	return id.String(), nil
}
