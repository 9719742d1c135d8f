// Package runtimeapi is the runtime API (/api/v1/…): the bundle runtimes
// poll with a bearer token (ETag / 304; held until a change when the
// runtime asks, longpoll.go), the public keys they verify it
// with, and the console's metrics, answered from memory (state.go) with
// every fetch recorded for the Runtimes page in batches (fleet.go). It is a
// product of its own beside the console's HTML (web): its own echo
// instance with JSON errors and no session, CSRF or HTML middleware, and a
// second listener on valyala/fasthttp for `serve --runtime-api-addr`
// (fasthttp.go). The console mounts Service on its own listener.
package runtimeapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/notify"
	"github.com/toolgate/toolgate/internal/store"
)

// Config is what the runtime API needs.
type Config struct {
	Store  *store.DB
	Logger *slog.Logger
	// Keys is the signing keyring whose public keys /api/v1/keys serves;
	// nil serves an empty set.
	Keys keyring.Keyring
	// PollInterval is how often the API checks the database for a bundle
	// published or a token changed by another process (a second console,
	// the CLI); 0 means 2 s. Changes made through this process's store are
	// seen at once.
	PollInterval time.Duration
	// InstancesPerToken bounds the instance rows one token keeps; 0 means
	// store.DefaultInstancesPerToken.
	InstancesPerToken int
	// CallRecordRetention is how long call records are kept (pruned
	// hourly); 0 means 30 days.
	CallRecordRetention time.Duration
	// LongPollMax bounds the wait a request may ask for with Prefer: wait
	// (longpoll.go); 0 means DefaultLongPollMax, negative turns long
	// polling off (every request is answered at once).
	LongPollMax time.Duration
	// Per-call decisions (call_requests.go). BaseURL is the console's,
	// for a request's page in callgate.Status.URL. GrantLifetime is how
	// long a grant is valid (0: bundle.DefaultGrantLifetime);
	// CallRequestLifetime how long a request waits for a decision (0: an
	// hour); CallLimits bound the pending requests (zero:
	// approval.DefaultLimits). Notifier is told of each new request
	// waiting for an approver (nil: notify.Nop).
	BaseURL             string
	GrantLifetime       time.Duration
	CallRequestLifetime time.Duration
	CallLimits          approval.Limits
	Notifier            notify.Notifier
}

// defaultPoll is Config.PollInterval when zero.
const defaultPoll = 2 * time.Second

// Service is the runtime API: an http.Handler (for the console's
// listener), a fasthttp handler (FastHTTP) and the background loop that
// polls the database and flushes fleet records until Close.
type Service struct {
	db      *store.DB
	log     *slog.Logger
	keys    keyring.Keyring
	api     *echo.Echo
	state   *apiState
	metrics *apiMetrics
	cache   bundleCache
	fleet   *fleetRecorder
	poll    *longPoll
	// retention is how long call records are kept (call_records.go).
	retention time.Duration
	// calls are the per-call settings; bundleTools the tools of the
	// bundle versions call requests named (call_requests*.go).
	calls       callSettings
	bundleTools toolsCache
	// stop ends the background loop (poll and fleet flushes); done is
	// closed when it has.
	stop context.CancelFunc
	done chan struct{}
}

// New loads the current bundle and the active tokens and starts the
// background loop; Close stops it.
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Logger == nil {
		return nil, errors.New("runtimeapi.New: Store and Logger are required")
	}
	state, err := newAPIState(ctx, cfg.Store)
	if err != nil {
		return nil, fmt.Errorf("runtime API: %w", err)
	}
	s := &Service{db: cfg.Store, log: cfg.Logger, keys: cfg.Keys, state: state, metrics: newAPIMetrics(state),
		poll: newLongPoll(cfg.LongPollMax)}
	s.fleet = newFleetRecorder(cfg.Store, cfg.Logger, s.metrics)
	if cfg.InstancesPerToken > 0 {
		s.fleet.perToken = cfg.InstancesPerToken
	}
	s.retention = cfg.CallRecordRetention
	s.calls = newCallSettings(cfg)
	if s.retention <= 0 {
		s.retention = defaultCallRecordRetention
	}
	s.api = s.newAPI()
	poll := cfg.PollInterval
	if poll <= 0 {
		poll = defaultPoll
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop, s.done = stop, make(chan struct{})
	// The first prune runs before New returns: at start, and before anyone
	// can change the store's clock under the background goroutine.
	s.pruneCallRecords(ctx)
	s.startLongPoll(bg)
	go s.background(bg, poll)
	return s, nil
}

// ServeHTTP answers a runtime API request on net/http: the fleet's most
// common request (a 304) before echo, everything else through it.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.notModifiedFast(w, r) {
		return
	}
	s.api.ServeHTTP(w, r)
}

// InstancesPerToken is how many instance rows a token keeps (the Runtimes
// page says so when older ones were evicted).
func (s *Service) InstancesPerToken() int { return s.fleet.perToken }

// Flush writes the fleet records pending in memory now.
func (s *Service) Flush(ctx context.Context) { s.fleet.flush(ctx) }

// background polls the database for other processes' changes, flushes
// fleet records, prunes call records (hourly; New pruned once) and closes
// expired call requests until ctx ends.
func (s *Service) background(ctx context.Context, poll time.Duration) {
	defer close(s.done)
	pollT, flushT, pruneT := time.NewTicker(poll), time.NewTicker(fleetFlushEvery), time.NewTicker(pruneEvery)
	expireT := time.NewTicker(expireEvery)
	defer pollT.Stop()
	defer flushT.Stop()
	defer pruneT.Stop()
	defer expireT.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-pollT.C:
			if err := s.pollAndWake(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("runtime API: checking for a new bundle or token change", "err", err)
			}
		case <-flushT.C:
			s.fleet.flush(ctx)
		case <-pruneT.C:
			s.pruneCallRecords(ctx)
		case <-expireT.C:
			s.expireCallRequests(ctx)
		}
	}
}

// Close stops the background loop and writes the fleet records still
// pending. Call it once every listener has stopped taking requests.
func (s *Service) Close(ctx context.Context) {
	s.stop()
	<-s.done
	s.poll.watchers.Wait()
	s.fleet.flush(ctx)
}

// publicKeys is the JWKS runtimes trust; empty without a keyring.
func (s *Service) publicKeys(ctx context.Context) (bundle.KeySet, error) {
	if s.keys == nil {
		return bundle.KeySet{}, nil
	}
	return s.keys.PublicKeys(ctx)
}
