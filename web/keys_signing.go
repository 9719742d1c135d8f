package web

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
)

// defaultRuntimeStaleAfter is used when Config.RuntimeStaleAfter is zero.
const defaultRuntimeStaleAfter = 10 * time.Minute

// publishing is the server's publishing side: the signing keys and the
// next-bundle preview. The runtime API, with its bundle cache and fleet
// recorder, is internal/runtimeapi's (Deps.RuntimeAPI).
type publishing struct {
	keys keyring.Keyring
	// keyMu serialises this process's key changes and signing, so a key
	// this console is publishing with is not retired halfway (across
	// consoles the store refuses a bundle signed with a retired key).
	keyMu      sync.Mutex
	preview    previewCache
	staleAfter time.Duration
}

// initPublishing creates the first signing key when the keyring has none
// (audited as key.create).
func (s *Server) initPublishing(ctx context.Context) error {
	s.pub = &publishing{keys: s.deps.Keys, staleAfter: s.deps.Config.RuntimeStaleAfter}
	if s.pub.staleAfter <= 0 {
		s.pub.staleAfter = defaultRuntimeStaleAfter
	}
	if s.pub.keys == nil {
		return nil
	}
	if _, _, err := s.pub.keys.EnsureActive(ctx, "system"); err != nil {
		return fmt.Errorf("web.New: %w", err)
	}
	return nil
}

// Close writes the summaries of refused sign-ins still pending. Call it
// once the HTTP server has stopped taking requests.
func (s *Server) Close(ctx context.Context) {
	s.closeRefusedSignIns(ctx)
}

// errNoKeys is the answer when the server runs without a key directory.
var errNoKeys = apperr.Conflictf("This console has no signing key directory; start it with `toolgate serve` to create one.")

// activeKey returns the key that signs now. Callers hold keyMu.
func (p *publishing) activeKey(ctx context.Context) (bundle.SigningKey, error) {
	if p.keys == nil {
		return bundle.SigningKey{}, errNoKeys
	}
	k, err := p.keys.Active(ctx)
	if err != nil {
		return bundle.SigningKey{}, fmt.Errorf("active signing key: %w", err)
	}
	return k, nil
}
