// Package web is the console's HTTP side: an echo server with every route
// in routes.go, one file per resource action, middleware for sessions, CSRF,
// roles and security headers, and one error handler (errors.go).
package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"github.com/toolgate/toolgate/internal/notify"
	"github.com/toolgate/toolgate/internal/webhook"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/pusher"
	"github.com/toolgate/toolgate/internal/sso"
	"github.com/toolgate/toolgate/internal/store"
)

// Deps is everything the web server needs. Later features add fields here
// rather than reaching for globals.
type Deps struct {
	Store  *store.DB
	Logger *slog.Logger
	// Config must have BaseURL set (config.Config.WithListenAddr).
	Config config.Config
	// SessionKeys sign and encrypt the session cookie (LoadSessionKeys).
	SessionKeys [][]byte
	// Throttle limits password checks; nil means auth.DefaultThrottle() in
	// memory. Consoles sharing a database pass one whose buckets are in it
	// (store.LoginThrottle), so guesses spread over them meet one limit.
	Throttle *auth.Throttle
	// CheckPassword checks a password against a stored hash; nil means
	// auth.CheckPassword. Tests count checks through it.
	CheckPassword func(encoded, password string) error
	// Keys holds the bundle signing keys (keyring.Files in DATA_DIR/keys,
	// or keyring.Database shared by several consoles); New creates the
	// first one. nil: publishing and key pages answer that there is no key.
	Keys keyring.Keyring
	// RuntimeAPI, when set, is mounted at /api/ on the console's listener
	// (runtimeapi.Service): the bundle API runtimes poll, its keys and
	// metrics. nil: /api/ answers 404. Its owner closes it.
	RuntimeAPI RuntimeAPI
	// Pusher, when set, pushes published bundles to an OCI registry in the
	// background (--publish-to-registry); the Bundles page shows where each
	// version's push stands and offers admins "Retry push now". nil: no
	// registry, nothing about it is shown.
	Pusher *pusher.Pusher
	// RefusalWindow is how long refused sign-ins are counted before their
	// summary is audited (login_refusals.go); 0 means a minute.
	RefusalWindow time.Duration
	// SSO, when set, offers single sign-on with its provider and makes the
	// store refuse console grants of the approver role (store.SignInSSO).
	SSO *sso.Client
	// Notifier tells approvers of new change requests (and, through the
	// runtime API, call requests); nil means notify.Nop.
	Notifier notify.Notifier
	// Webhooks is how the Webhooks page stores secrets.
	Webhooks WebhookDeps
}

// WebhookDeps is what the Webhooks page needs.
type WebhookDeps struct {
	// Seal seals a new webhook's signing secret with the key the
	// dispatcher opens it with (serve passes the console's KEK). nil: a
	// key of this process only, for a console without a dispatcher
	// (tests).
	Seal webhook.Sealer
	// AllowInsecure accepts plain http beyond loopback
	// (--webhooks-allow-http).
	AllowInsecure bool
}

// RuntimeAPI is what the console needs of the runtime API
// (runtimeapi.Service), which lives in a package of its own: its handler
// for the console's listener and the bound the Runtimes page explains.
type RuntimeAPI interface {
	http.Handler
	// InstancesPerToken is how many instance rows a token keeps.
	InstancesPerToken() int
}

// Server is the console's HTTP handler.
type Server struct {
	deps     Deps
	echo     *echo.Echo
	cookies  *sessions.CookieStore
	assets   *assets
	throttle *auth.Throttle
	setup    *setupToken
	// dummyHash is checked against for unknown emails; made on first use
	// (hashing is deliberately slow, and most servers never need it).
	dummyHash func() (string, error)
	// checkPassword is Deps.CheckPassword or auth.CheckPassword.
	checkPassword func(encoded, password string) error
	// imports holds re-import uploads between preview and apply.
	imports pendingImports
	// pub is the publishing side: signing keys, runtime API, fleet.
	pub *publishing
	// refused counts the sign-ins the throttle refuses.
	refused *refusedSignIns
}

// New builds the server and registers every route. When the database has no
// user yet it creates the one-time setup token (SetupURL).
func New(ctx context.Context, d Deps) (*Server, error) {
	if d.Store == nil || d.Logger == nil || len(d.SessionKeys) == 0 || d.Config.BaseURL == "" {
		return nil, fmt.Errorf("web.New: Store, Logger, SessionKeys and Config.BaseURL are required")
	}
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	if d.Notifier == nil {
		d.Notifier = notify.Nop{}
	}
	if d.Webhooks.Seal == nil {
		kek, err := ephemeralKEK()
		if err != nil {
			return nil, err
		}
		d.Webhooks.Seal = kek.Seal
	}
	s := &Server{deps: d, assets: a, throttle: d.Throttle, setup: &setupToken{}}
	if s.throttle == nil {
		s.throttle = auth.NewThrottle(auth.DefaultThrottle())
	}
	s.checkPassword = d.CheckPassword
	if s.checkPassword == nil {
		s.checkPassword = auth.CheckPassword
	}
	s.dummyHash = sync.OnceValues(func() (string, error) { return auth.HashPassword("no such user") })
	s.cookies = newCookieStore(d.SessionKeys, d.Config)
	if d.SSO != nil {
		// Roles come from the provider's groups: the store enforces it.
		d.Store.SSOProvider = d.SSO.Name()
	}
	n, err := d.Store.CountUsers(ctx)
	if err != nil {
		return nil, fmt.Errorf("web.New: %w", err)
	}
	if n == 0 {
		if err := s.setup.create(); err != nil {
			return nil, err
		}
	}
	s.echo = echo.New()
	s.echo.HideBanner, s.echo.HidePort = true, true
	s.echo.HTTPErrorHandler = s.handleError
	s.echo.IPExtractor = echo.ExtractIPDirect()
	s.routes()
	if err := s.initPublishing(ctx); err != nil {
		return nil, err
	}
	s.startRefusedSignIns(ctx)
	return s, nil
}

// ServeHTTP implements http.Handler.
// The runtime API (/api/) is a server of its own (internal/runtimeapi): no
// session, CSRF or HTML error middleware ever runs on it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		if s.deps.RuntimeAPI == nil {
			http.NotFound(w, r)
			return
		}
		s.deps.RuntimeAPI.ServeHTTP(w, r)
		return
	}
	s.echo.ServeHTTP(w, r)
}

// Echo exposes the router, for tests that enumerate routes.
func (s *Server) Echo() *echo.Echo { return s.echo }

// SetupURL is the one-time link that creates the first admin, or "" once
// setup is done.
func (s *Server) SetupURL() string {
	tok := s.setup.get()
	if tok == "" {
		return ""
	}
	return s.deps.Config.BaseURL + "/setup?token=" + tok
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
