package keyring

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
)

// Keyring holds the bundle signing keys. Rotate, Retire and EnsureActive
// record their audit entry themselves (key.rotate, key.retire,
// key.create), in the same transaction as the change where the keys live
// in the database.
type Keyring interface {
	// List returns every key, oldest first, and the active kid ("" before
	// the first key).
	List(ctx context.Context) (active string, keys []bundle.KeyInfo, err error)
	// Active returns the key that signs now (bundle.ErrNoActiveKey before
	// the first). It is read at every call, never cached.
	Active(ctx context.Context) (bundle.SigningKey, error)
	// PublicKeys returns the keys runtimes should trust: every key not
	// retired.
	PublicKeys(ctx context.Context) (bundle.KeySet, error)
	// EnsureActive creates the first key when there is none; created says
	// whether this call made it.
	EnsureActive(ctx context.Context, actor string) (kid string, created bool, err error)
	// Rotate makes a new key active and returns its kid.
	Rotate(ctx context.Context, actor string) (string, error)
	// Retire stops publishing a key that is not active and deletes its
	// private half. The key of the current bundle cannot be retired.
	Retire(ctx context.Context, actor, kid string) error
}

// Files is the Keyring of a key directory (bundle.KeyDir) with its audit
// entries in db. Its lock serialises changes and reads within one process;
// KeyDir does not lock across processes, so only one console may use a key
// directory (several consoles use Database).
type Files struct {
	Dir bundle.KeyDir
	DB  *store.DB
	mu  sync.Mutex
}

// List implements Keyring.
func (f *Files) List(context.Context) (string, []bundle.KeyInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Dir.List()
}

// Active implements Keyring.
func (f *Files) Active(context.Context) (bundle.SigningKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Dir.Active()
}

// PublicKeys implements Keyring.
func (f *Files) PublicKeys(context.Context) (bundle.KeySet, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Dir.PublicKeys()
}

// errKeyExists aborts the key.create audit transaction when there was a key
// already: nothing changed, so nothing is recorded.
var errKeyExists = errors.New("signing key exists")

// EnsureActive implements Keyring.
func (f *Files) EnsureActive(ctx context.Context, actor string) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var kid string
	err := f.DB.RecordKeyChange(ctx, store.KeyChange{Actor: actor, Action: store.KeyCreate,
		Apply: func() (string, any, any, error) {
			k, created, err := f.Dir.EnsureActive(rand.Reader, f.DB.Now())
			if err != nil {
				return "", nil, nil, err
			}
			kid = k.KeyID
			if !created {
				return "", nil, nil, errKeyExists
			}
			return k.KeyID, nil, map[string]any{"active": k.KeyID, "reason": "first start"}, nil
		}})
	if errors.Is(err, errKeyExists) {
		return kid, false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("signing key: %w", err)
	}
	return kid, true, nil
}

// Rotate implements Keyring.
func (f *Files) Rotate(ctx context.Context, actor string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var kid string
	err := f.DB.RecordKeyChange(ctx, store.KeyChange{Actor: actor, Action: store.KeyRotate,
		Apply: func() (string, any, any, error) {
			old, _, err := f.Dir.List()
			if err != nil {
				return "", nil, nil, err
			}
			k, err := f.Dir.Rotate(rand.Reader, f.DB.Now())
			if err != nil {
				return "", nil, nil, err
			}
			kid = k.KeyID
			return kid, map[string]string{"active": old}, map[string]string{"active": kid}, nil
		}})
	return kid, err
}

// Retire implements Keyring.
func (f *Files) Retire(ctx context.Context, actor, kid string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur, err := f.DB.LatestBundleSummary(ctx)
	if apperr.CodeOf(err) == apperr.NotFound {
		cur, err = nil, nil
	}
	if err != nil {
		return err
	}
	return f.DB.RecordKeyChange(ctx, store.KeyChange{Actor: actor, Action: store.KeyRetire,
		Apply: func() (string, any, any, error) {
			active, keys, err := f.Dir.List()
			if err != nil {
				return "", nil, nil, err
			}
			i := slices.IndexFunc(keys, func(k bundle.KeyInfo) bool { return k.KeyID == kid })
			switch {
			case i < 0:
				return "", nil, nil, apperr.NotFoundf("There is no signing key %q.", kid)
			case kid == active:
				return "", nil, nil, apperr.Conflictf("The active key cannot be retired: rotate first.")
			case keys[i].RetiredAt != nil:
				return "", nil, nil, apperr.Conflictf("The key %s is retired already.", kid)
			case cur != nil && cur.KeyID == kid:
				return "", nil, nil, apperr.Conflictf("The current bundle v%d is signed with %s: publish with the new key first, then retire it.", cur.Version, kid)
			}
			if err := f.Dir.Retire(kid, f.DB.Now()); err != nil {
				return "", nil, nil, err
			}
			return kid, map[string]bool{"published": true}, map[string]bool{"published": false}, nil
		}})
}
