package web

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
)

// defaultRuntimeStaleAfter is used when Config.RuntimeStaleAfter is zero.
const defaultRuntimeStaleAfter = 10 * time.Minute

// publishing is the server's publishing side: the signing keys, the
// runtime API with its bundle cache and fleet recorder.
type publishing struct {
	keys keyring.Keyring
	// keyMu serialises this process's key changes and signing, so a key
	// this console is publishing with is not retired halfway (across
	// consoles the store refuses a bundle signed with a retired key).
	keyMu      sync.Mutex
	api        *echo.Echo
	state      *apiState
	metrics    *apiMetrics
	cache      bundleCache
	fleet      *fleetRecorder
	preview    previewCache
	staleAfter time.Duration
	// stop ends the background loop (poll and fleet flushes); done is
	// closed when it has.
	stop context.CancelFunc
	done chan struct{}
}

// defaultAPIPoll is how often a console checks the database for what
// another process published or revoked, when Deps.APIPollInterval is zero.
const defaultAPIPoll = 2 * time.Second

// initPublishing creates the first signing key when the keyring has none
// (audited as key.create) and builds the runtime API.
func (s *Server) initPublishing(ctx context.Context) error {
	state, err := newAPIState(ctx, s.deps.Store)
	if err != nil {
		return fmt.Errorf("web.New: runtime API: %w", err)
	}
	m := newAPIMetrics(state)
	s.pub = &publishing{keys: s.deps.Keys, staleAfter: s.deps.Config.RuntimeStaleAfter, state: state, metrics: m,
		fleet: newFleetRecorder(s.deps.Store, s.deps.Logger, m)}
	if s.pub.staleAfter <= 0 {
		s.pub.staleAfter = defaultRuntimeStaleAfter
	}
	s.pub.api = s.newAPI()
	poll := s.deps.APIPollInterval
	if poll <= 0 {
		poll = defaultAPIPoll
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.pub.stop, s.pub.done = stop, make(chan struct{})
	go s.pub.background(bg, s.deps.Logger, poll)
	if s.pub.keys == nil {
		return nil
	}
	if _, _, err := s.pub.keys.EnsureActive(ctx, "system"); err != nil {
		return fmt.Errorf("web.New: %w", err)
	}
	return nil
}

// background polls the database for other processes' changes and flushes
// fleet records until ctx ends.
func (p *publishing) background(ctx context.Context, log *slog.Logger, poll time.Duration) {
	defer close(p.done)
	pollT, flushT := time.NewTicker(poll), time.NewTicker(fleetFlushEvery)
	defer pollT.Stop()
	defer flushT.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-pollT.C:
			if err := p.state.poll(ctx); err != nil && ctx.Err() == nil {
				log.Warn("runtime API: checking for a new bundle or token change", "err", err)
			}
		case <-flushT.C:
			p.fleet.flush(ctx)
		}
	}
}

// Close stops the background loops and writes the fleet records and the
// summaries of refused sign-ins still pending. Call it once the HTTP
// server has stopped taking requests.
func (s *Server) Close(ctx context.Context) {
	s.pub.stop()
	<-s.pub.done
	s.pub.fleet.flush(ctx)
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

// publicKeys is the JWKS runtimes trust; empty without a key directory.
func (p *publishing) publicKeys(ctx context.Context) (bundle.KeySet, error) {
	if p.keys == nil {
		return bundle.KeySet{}, nil
	}
	return p.keys.PublicKeys(ctx)
}
