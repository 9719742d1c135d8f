package oidctest

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// Provider is a running OpenID Provider on loopback.
type Provider struct {
	// Issuer is the provider's issuer URL (http://127.0.0.1:PORT), where
	// /.well-known/openid-configuration is served.
	Issuer string

	users *users
	mu    sync.Mutex
	// Guarded by mu:
	clients             map[string]*client
	agents              map[string]*Agent
	codeIssued          map[string]time.Time
	codeLifetime        time.Duration
	forgedAudience      string
	lastChallengeMethod string
}

// Start runs a provider on 127.0.0.1 with users, stopped when tb ends.
func Start(tb testing.TB, us ...User) *Provider {
	tb.Helper()
	p, stop, err := start(us...)
	if err != nil {
		tb.Fatalf("oidctest: %v", err)
	}
	tb.Cleanup(stop)
	return p
}

func start(us ...User) (*Provider, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	p := &Provider{Issuer: "http://" + ln.Addr().String(), users: &users{byID: map[string]*User{}},
		clients: map[string]*client{}, agents: map[string]*Agent{}, codeIssued: map[string]time.Time{}, codeLifetime: time.Minute}
	for _, u := range us {
		p.users.add(u)
	}
	st := &opStorage{Storage: storage.NewStorageWithClients(p.users, map[string]*storage.Client{}), p: p}
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return nil, nil, err
	}
	cfg := &op.Config{CryptoKey: key, CodeMethodS256: true, AuthMethodPost: true, GrantTypeRefreshToken: true,
		SupportedUILocales: []language.Tag{language.English}}
	provider, err := op.NewProvider(cfg, st, op.StaticIssuer(p.Issuer), op.WithAllowInsecure(),
		op.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		_ = ln.Close()
		return nil, nil, err
	}
	mux := http.NewServeMux()
	l := &login{st: st, callback: op.AuthCallbackURL(provider)}
	mux.Handle("/login", op.NewIssuerInterceptor(provider.IssuerFromRequest).Handler(l))
	mux.Handle("/", provider)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = hs.Close()
		}
	}
	return p, stop, nil
}

// AddClient registers a confidential client allowed to redirect to the
// exact redirectURIs.
func (p *Provider) AddClient(id, secret string, redirectURIs ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clients[id] = &client{id: id, secret: secret, redirectURIs: redirectURIs}
}

// AddUser adds (or replaces) a user.
func (p *Provider) AddUser(u User) { p.users.add(u) }

// SetGroups replaces the groups of the user with subject id; the next
// tokens issued carry the new list. It panics on an unknown user (a test
// mistake).
func (p *Provider) SetGroups(id string, groups ...string) {
	if !p.users.setGroups(id, groups) {
		panic("oidctest: no user " + id)
	}
}

// SetCodeLifetime changes how long an authorization code can be exchanged
// (default one minute); a tiny value makes every code expired.
func (p *Provider) SetCodeLifetime(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codeLifetime = d
}

// ForgeAudience makes the provider issue ID tokens for audience aud
// instead of the client that asked ("" turns it off): a token meant for
// another application.
func (p *Provider) ForgeAudience(aud string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forgedAudience = aud
}

// LastCodeChallengeMethod is the PKCE code_challenge_method of the latest
// authorization request ("" when it had none).
func (p *Provider) LastCodeChallengeMethod() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastChallengeMethod
}
