package web

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
)

// defaultRuntimeStaleAfter is used when Config.RuntimeStaleAfter is zero.
const defaultRuntimeStaleAfter = 10 * time.Minute

// publishing is the server's publishing side: the signing keys, the
// runtime API with its bundle cache and fleet recorder.
type publishing struct {
	keys *bundle.KeyDir
	// keyMu serialises key changes and signing: KeyDir does not lock, and
	// a publish must not read the active key while a rotation rewrites it.
	keyMu      sync.Mutex
	api        *echo.Echo
	cache      bundleCache
	fleet      *fleetRecorder
	staleAfter time.Duration
}

// initPublishing creates the first signing key when the data directory has
// none (audited as key.create) and builds the runtime API.
func (s *Server) initPublishing(ctx context.Context) error {
	s.pub = &publishing{keys: s.deps.Keys, staleAfter: s.deps.Config.RuntimeStaleAfter,
		fleet: newFleetRecorder(s.deps.Store, s.deps.Logger)}
	if s.pub.staleAfter <= 0 {
		s.pub.staleAfter = defaultRuntimeStaleAfter
	}
	s.pub.api = s.newAPI()
	if s.pub.keys == nil {
		return nil
	}
	err := s.deps.Store.RecordKeyChange(ctx, store.KeyChange{Actor: "system", Action: store.KeyCreate,
		Apply: func() (string, any, any, error) {
			k, created, err := s.pub.keys.EnsureActive(rand.Reader, s.deps.Store.Now())
			if err != nil {
				return "", nil, nil, err
			}
			if !created {
				return "", nil, nil, errKeyExists
			}
			return k.KeyID, nil, map[string]any{"active": k.KeyID, "reason": "first start"}, nil
		}})
	if err != nil && !errors.Is(err, errKeyExists) {
		return fmt.Errorf("web.New: signing key: %w", err)
	}
	return nil
}

// errKeyExists aborts the key.create audit transaction when there was a key
// already: nothing changed, so nothing is recorded.
var errKeyExists = errors.New("signing key exists")

// errNoKeys is the answer when the server runs without a key directory.
var errNoKeys = apperr.Conflictf("This console has no signing key directory; start it with `toolgate serve` to create one.")

// activeKey returns the key that signs now. Callers hold keyMu.
func (p *publishing) activeKey() (bundle.SigningKey, error) {
	if p.keys == nil {
		return bundle.SigningKey{}, errNoKeys
	}
	k, err := p.keys.Active()
	if err != nil {
		return bundle.SigningKey{}, fmt.Errorf("active signing key: %w", err)
	}
	return k, nil
}

// publicKeys is the JWKS runtimes trust; empty without a key directory.
func (p *publishing) publicKeys() (bundle.KeySet, error) {
	if p.keys == nil {
		return bundle.KeySet{}, nil
	}
	return p.keys.PublicKeys()
}
