package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/principal"
)

// Defaults of Options.
const (
	DefaultPollInterval = 30 * time.Second
	DefaultPollJitter   = 0.2
	DefaultMaxStaleness = time.Hour
)

// Options configure a Runtime. DataDir is required; so are ConsoleURL and
// Token unless BundleSource names a registry; so is a source of trusted
// keys: TrustedKeys, keys persisted by an earlier trust-on-first-use, or
// TrustOnFirstUse (which needs ConsoleURL).
type Options struct {
	// ConsoleURL is the console's base URL, e.g. http://127.0.0.1:8080.
	// With a registry BundleSource it is optional: when set (with Token)
	// the runtime keeps reporting to the console's fleet view.
	ConsoleURL string
	// BundleSource is where bundles come from: "" (the console) or
	// oci://host[:port]/repository, whose "latest" tag is pulled on every
	// poll. Verification is the same whichever it is.
	BundleSource string
	// Registry configures the registry client (credentials, plain HTTP)
	// when BundleSource is a registry.
	Registry oci.Options
	// Token is the runtime token the console issued. It is sent only as a
	// bearer token to the console and never logged.
	Token string
	// Name identifies the runtime in the console's fleet view.
	Name string
	// DataDir is the data directory; the runtime keeps its state in
	// DataDir/runtime (last good bundle, trusted keys, instance id).
	DataDir string
	// TrustedKeys are the pinned public keys bundles must be signed with.
	TrustedKeys *bundle.KeySet
	// TrustOnFirstUse fetches GET /api/v1/keys once when no keys are pinned
	// or persisted, and persists what it got: later key changes need an
	// explicit act (a new pinned file, or deleting trusted-keys.json).
	TrustOnFirstUse bool
	// PollInterval is the mean time between fetches (DefaultPollInterval);
	// PollJitter the fraction it varies by either way (DefaultPollJitter),
	// so a fleet started together does not fetch in lockstep.
	PollInterval time.Duration
	PollJitter   float64
	// MaxStaleness is how long the bundle may go unconfirmed by the console
	// before DESTRUCTIVE and PRIVILEGED tools are refused (R11);
	// DefaultMaxStaleness when zero.
	MaxStaleness time.Duration
	// Executor are the options every executor is built with (credentials,
	// local-development flag, clock). A nil Transport is replaced by one
	// executor.NewTransport shared by every executor, so swaps keep the
	// connection pool; a nil Breakers by one registry of the runtime's, so
	// swaps keep each unchanged tool's circuit breaker (R7); a nil Schemas
	// by one cache of the runtime's, so swaps compile only changed schemas.
	Executor executor.Options
	// HTTPClient talks to the console (nil: a client with a 30 s timeout).
	HTTPClient *http.Client
	// Logger receives the sync events and one line per tool call (nil: discard).
	Logger *slog.Logger
	// Now and Rand replace the wall clock and math/rand in tests.
	Now  func() time.Time
	Rand func() float64
	// Version is the toolgate version reported to MCP clients.
	Version string
	// BundleSchemas are the bundle schemas this runtime reads and says it
	// reads when it fetches (HeaderBundleSchemas); nil is every schema
	// this release reads (bundle.KnownSchemas). Tests set
	// []string{bundle.SchemaV1} to run a runtime as one from before
	// toolgate.bundle/v2: it sends no header and refuses v2 bundles.
	BundleSchemas []string
	// AllowedOrigins are browser origins (http(s)://host[:port]) allowed
	// to use the streamable HTTP endpoint besides loopback ones; requests
	// without Origin are always allowed, any other Origin gets 403.
	AllowedOrigins []string
	// StdioPrincipal is who every request read by ServeStdio is for: the
	// local user the operator names (kind principal.Local). The zero value
	// leaves stdio requests anonymous. HTTP requests take theirs from the
	// endpoint's verifier (internal/agentauth).
	StdioPrincipal principal.Principal
	// DecisionWait is how long a call that needs a person's decision
	// (R16) waits for it before answering APPROVAL_PENDING;
	// DefaultDecisionWait when zero.
	DecisionWait time.Duration
}

// Runtime fetches and verifies bundles, keeps the last good one on disk,
// and serves the exposed tools over MCP through the executor.
type Runtime struct {
	opts Options
	log  *slog.Logger
	disk disk
	// source is the console when bundles come from it; registry is set
	// instead when they come from a registry. console is nil when no
	// console URL is configured.
	source     source
	registry   *registrySource
	console    *console
	instanceID string
	keys       atomic.Pointer[bundle.KeySet]

	// snap is the bundle in force with its executor; a call loads it once
	// and finishes on it, so a swap never fails a call in flight.
	snap atomic.Pointer[snapshot]
	// confirmedAt (unix ns) is when the console last confirmed the bundle
	// is current (200 accepted or 304; from a registry, the issue time of
	// a timestamp naming it): the age the staleness rule uses.
	confirmedAt atomic.Int64
	// behind is the version a registry's timestamp names when the registry
	// serves an older one (0 otherwise): stale at once (R14).
	behind atomic.Int64
	// stamp is the registry timestamp held (syncRegistry; syncMu).
	stamp stampHeld
	// fresh is the freshness last logged (noteFreshness; listMu).
	fresh freshness

	syncMu sync.Mutex // one fetch/accept at a time
	// memo holds the tools of the last bundle verified, so that a bundle
	// changing a few tools re-checks only those (bundle.Memo). Guarded by
	// syncMu; loadPersisted uses it before any Sync runs.
	memo bundle.Memo

	server   *mcp.Server
	listMu   sync.Mutex
	listed   map[string]*listing // tools currently registered with server
	metrics  *metrics
	records  *callRecords // records.go
	execOpts executor.Options

	// summaries counts calls per tool and minute (summaries.go).
	summaries *callSummaries

	allowedOrigins map[string]bool
	gate           perCallGate // percall.go

	// lastRefusal is why the last fetched bundle was refused ("" once a
	// bundle is accepted), reported to the console on every fetch.
	lastRefusal atomic.Value // string
}

// New prepares a runtime: state directory, instance id, trusted keys (a
// pinned set, or ones trusted earlier) and the persisted last good bundle,
// which it serves at once so a restart with the console down still works.
func New(opts Options) (*Runtime, error) {
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	opts.defaults()
	r := &Runtime{opts: opts, log: opts.Logger, disk: disk{dir: filepath.Join(opts.DataDir, "runtime")},
		listed: map[string]*listing{}}
	r.lastRefusal.Store("")
	r.allowedOrigins, _ = normalizeOrigins(opts.AllowedOrigins) // checked by validate
	if err := r.disk.ensure(); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	id, err := r.disk.instanceID()
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	r.instanceID = id
	if err := r.setSource(); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	r.execOpts = opts.Executor
	if r.execOpts.Transport == nil {
		r.execOpts.Transport = executor.NewTransport()
	}
	if r.execOpts.Breakers == nil {
		r.execOpts.Breakers = executor.NewBreakers()
	}
	if r.execOpts.Schemas == nil {
		r.execOpts.Schemas = executor.NewSchemas()
	}
	r.metrics = newMetrics(r)
	r.records = newCallRecords(r.metrics.reg)
	r.summaries = newCallSummaries(r.metrics.reg)
	r.server = newMCPServer(opts)
	r.server.AddReceivingMiddleware(r.filterList)
	if err := r.loadKeys(); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	if err := r.loadPersisted(); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	return r, nil
}

func (o Options) validate() error {
	var errs []error
	errs = append(errs, o.validateSource()...)
	if o.DataDir == "" {
		errs = append(errs, errors.New("no data directory"))
	}
	if _, err := normalizeOrigins(o.AllowedOrigins); err != nil {
		errs = append(errs, err)
	}
	if err := validateSchemas(o.BundleSchemas); err != nil {
		errs = append(errs, err)
	}
	if o.PollInterval < 0 || o.MaxStaleness < 0 || o.PollJitter < 0 || o.PollJitter >= 1 || o.DecisionWait < 0 {
		errs = append(errs, errors.New("poll interval, max staleness and decision wait must not be negative; jitter must be in [0, 1)"))
	}
	return errors.Join(errs...)
}

func (o *Options) defaults() {
	if o.PollInterval == 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.PollJitter == 0 {
		o.PollJitter = DefaultPollJitter
	}
	if o.MaxStaleness == 0 {
		o.MaxStaleness = DefaultMaxStaleness
	}
	if o.DecisionWait == 0 {
		o.DecisionWait = DefaultDecisionWait
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.Name == "" {
		o.Name = "toolgate-runtime"
	}
}

// InstanceID is the id this runtime reports to the console.
func (r *Runtime) InstanceID() string { return r.instanceID }

// Run syncs at once, then at jittered intervals until ctx ends. Between
// fetches it wakes when the bundle turns stale or expires, so tools/list
// drops the tools the staleness rule disables without waiting for a poll.
// A failed fetch, or one that leaves the runtime without a bundle, is
// retried sooner (retryDelay: 1 s, 2 s, 4 s … up to the poll interval), so
// a runtime started a moment before its token or first bundle exists
// serves as soon as they do. Against a console that long polls, each
// fetch waits at the console for a change and the next starts at once
// (syncOnce). Run only returns when ctx is done.
func (r *Runtime) Run(ctx context.Context) error {
	pollAt := r.opts.Now()
	failures := 0
	for {
		if !r.opts.Now().Before(pollAt) {
			wait := r.syncOnce(ctx, &failures)
			if ctx.Err() != nil {
				return nil
			}
			pollAt = r.opts.Now().Add(wait)
		}
		r.reconcile()
		wait := pollAt.Sub(r.opts.Now())
		if b, ok := r.nextBoundary(); ok && b < wait {
			wait = b
		}
		t := time.NewTimer(max(wait, time.Millisecond))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// nextInterval is PollInterval ± PollJitter, uniform.
func (r *Runtime) nextInterval() time.Duration {
	j := r.opts.PollJitter * (2*r.opts.Rand() - 1)
	return time.Duration(float64(r.opts.PollInterval) * (1 + j))
}

// Server is the MCP server (for stdio or any other transport).
func (r *Runtime) Server() *mcp.Server { return r.server }

// MCPHandler serves MCP over streamable HTTP (stateful sessions, so that
// notifications/tools/list_changed reach connected clients). Requests with
// a foreign Origin get 403 (see checkOrigin).
func (r *Runtime) MCPHandler() http.Handler {
	return r.checkOrigin(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return r.server },
		&mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute}))
}
