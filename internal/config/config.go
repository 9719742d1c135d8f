// Package config is the console's configuration: one struct, filled by the
// CLI from flags with TOOLGATE_* environment fallbacks (the kong tags below),
// then validated before anything starts.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// Config configures `toolgate serve`.
type Config struct {
	Addr string `name:"addr" env:"TOOLGATE_ADDR" default:"127.0.0.1:8080" help:"Address to listen on (host:port; port 0 picks a free one)."`
	// RuntimeAPIAddr, when set, is a second listener serving only the
	// runtime API, on an HTTP stack built for many polling runtimes (see
	// runtimeapi.Service.FastHTTP). The console's own listener serves it too.
	RuntimeAPIAddr string `name:"runtime-api-addr" env:"TOOLGATE_RUNTIME_API_ADDR" placeholder:"HOST:PORT" help:"Also serve the runtime API (/api/v1/…) on this address, on its own listener built for a fleet of polling runtimes; point runtimes' --console at it. Empty: only on --addr."`
	// RuntimeAPIMaxConns and RuntimeAPIMaxConnsPerIP bound the runtime
	// API listener's open connections, in total and per client address, so
	// that a flood of idle connections runs into them before it runs the
	// process out of file descriptors. 0 means the default
	// (RuntimeAPIConnLimits).
	RuntimeAPIMaxConns      int `name:"runtime-api-max-conns" env:"TOOLGATE_RUNTIME_API_MAX_CONNS" default:"8192" help:"Most connections the --runtime-api-addr listener keeps open at once; beyond it a new connection gets 503 and is closed. Keep it below the file limit (ulimit -n)."`
	RuntimeAPIMaxConnsPerIP int `name:"runtime-api-max-conns-per-ip" env:"TOOLGATE_RUNTIME_API_MAX_CONNS_PER_IP" default:"256" help:"Most connections the --runtime-api-addr listener keeps open from one client address; beyond it a new one gets 429 and is closed."`
	// LongPollMax bounds the wait a runtime may ask for (Prefer: wait) on
	// a conditional bundle or keys request (runtimeapi longpoll.go); 0
	// turns long polling off.
	LongPollMax time.Duration `name:"long-poll-max" env:"TOOLGATE_LONG_POLL_MAX" default:"30s" help:"Longest a runtime's conditional bundle request is held waiting for a newer version (Prefer: wait=N) before 304; 0 answers at once (no long polling). Keep it below a minute (the listeners' write timeout)."`
	DataDir     string        `name:"data-dir" env:"TOOLGATE_DATA_DIR" default:"./data" help:"Directory for the database and session keys."`
	// DatabaseURL, when set, names a PostgreSQL database used instead of
	// DATA_DIR/toolgate.db (the data directory still holds the keys).
	DatabaseURL   string        `name:"database-url" env:"TOOLGATE_DATABASE_URL" help:"PostgreSQL database (postgres://user:password@host:port/db?sslmode=…) instead of DATA_DIR/toolgate.db; for several console instances."`
	BaseURL       string        `name:"base-url" env:"TOOLGATE_BASE_URL" help:"Public URL of the console, used in links (default http://ADDR). An https URL makes cookies Secure."`
	SessionIdle   time.Duration `name:"session-idle" env:"TOOLGATE_SESSION_IDLE" default:"1h" help:"A session ends after this long without a request."`
	SessionMaxAge time.Duration `name:"session-max-age" env:"TOOLGATE_SESSION_MAX_AGE" default:"12h" help:"A session ends this long after sign-in."`
	// RuntimeStaleAfter flags a runtime instance on the Runtimes page when
	// it has not fetched a bundle for this long (0 means 10m).
	RuntimeStaleAfter time.Duration `name:"runtime-stale-after" env:"TOOLGATE_RUNTIME_STALE_AFTER" default:"10m" help:"Flag runtime instances that have not fetched a bundle for this long."`
	// CallRecordsRetention is how long the call records runtimes report
	// are kept (README "Call records").
	CallRecordsRetention time.Duration `name:"call-records-retention" env:"TOOLGATE_CALL_RECORDS_RETENTION" default:"720h" help:"Keep the call records runtimes report for this long (pruned hourly), e.g. 720h for 30 days."`
	// WebhooksAllowHTTP lets webhooks use plain http beyond loopback
	// (README "Webhooks").
	WebhooksAllowHTTP bool `name:"webhooks-allow-http" env:"TOOLGATE_WEBHOOKS_ALLOW_HTTP" help:"Allow webhook URLs with plain http to hosts other than loopback (deliveries carry links to requests; https is the default rule)."`
	// WebhookRetryBase is the wait after a delivery's first failed
	// attempt, doubling after each (webhook.Config.BaseBackoff; 0 means
	// 5s). Tests on loopback shorten it.
	WebhookRetryBase time.Duration `name:"webhook-retry-base" env:"TOOLGATE_WEBHOOK_RETRY_BASE" default:"5s" help:"Wait after a webhook delivery's first failed attempt, doubled after each (with jitter, at most an hour), from 100ms to 1h."`
	// Per-call decisions (R16, README "Per-call decisions"): how long a
	// grant is valid, how long a call request waits for a decision, and
	// how many may wait at once per principal and per tool.
	GrantLifetime           time.Duration `name:"grant-lifetime" env:"TOOLGATE_GRANT_LIFETIME" default:"15m" help:"A call grant (an approved call) is valid for this long, from 1m to 24h."`
	CallRequestLifetime     time.Duration `name:"call-request-lifetime" env:"TOOLGATE_CALL_REQUEST_LIFETIME" default:"1h" help:"A call request waits this long for a decision, then expires (a denied one is answered until then)."`
	CallPendingPerPrincipal int           `name:"call-pending-per-principal" env:"TOOLGATE_CALL_PENDING_PER_PRINCIPAL" default:"20" help:"At most this many call requests of one principal wait for a decision at once; more are refused."`
	CallPendingPerTool      int           `name:"call-pending-per-tool" env:"TOOLGATE_CALL_PENDING_PER_TOOL" default:"100" help:"At most this many call requests for one tool wait for a decision at once; more are refused."`
	// ApproverIndependence is R10's window: the acts that make one account
	// control another count for this long (approval.Independence; 0 means
	// 168h, 7 days).
	// KEKFile names the key-encryption key file that turns on shared
	// console state (internal/keyring): signing keys and session cookie
	// keys in the database, sealed under it, and the sign-in throttle in
	// the database. Every console on one database gets the same file.
	KEKFile              string        `name:"key-encryption-key-file" env:"TOOLGATE_KEK_FILE" placeholder:"FILE" help:"Key-encryption key file (32 random bytes, raw or base64): keep signing and session keys in the database, sealed with it, and the sign-in throttle there too, so several consoles can share one database."`
	ApproverIndependence time.Duration `name:"approver-independence" env:"TOOLGATE_APPROVER_INDEPENDENCE" default:"168h" help:"For this long, an account cannot approve the requests of an account it controls, that controls it, or that shares a controller with it (created, made approver, re-enabled or reset, through any chain; default 7 days)."`
	// OIDC is single sign-on; LocalLogin=false (with OIDC on) leaves
	// password sign-in to break-glass accounts only. A Config built in Go
	// without OIDC keeps local sign-in whatever LocalLogin says.
	OIDC       `embed:""`
	LocalLogin bool `name:"local-login" env:"TOOLGATE_LOCAL_LOGIN" default:"true" negatable:"" help:"Allow password sign-in for every local account; false (with --oidc-issuer) allows it only for break-glass accounts."`
}

// Defaults of RuntimeAPIMaxConns and RuntimeAPIMaxConnsPerIP.
const (
	DefaultRuntimeAPIMaxConns      = 8192
	DefaultRuntimeAPIMaxConnsPerIP = 256
)

// MinWebhookRetryBase is the shortest --webhook-retry-base: short enough
// for a test on loopback, long enough that a failing receiver is not sent
// a burst.
const MinWebhookRetryBase = 100 * time.Millisecond

// RuntimeAPIConnLimits returns the runtime API listener's connection
// limits, in total and per client address, defaults in place of zeros.
func (c Config) RuntimeAPIConnLimits() (total, perIP int) {
	total, perIP = c.RuntimeAPIMaxConns, c.RuntimeAPIMaxConnsPerIP
	if total <= 0 {
		total = DefaultRuntimeAPIMaxConns
	}
	if perIP <= 0 {
		perIP = DefaultRuntimeAPIMaxConnsPerIP
	}
	return total, perIP
}

// DatabaseURLHelp is the error for a --database-url that is not a
// PostgreSQL URL. It does not repeat the value, which may hold a password.
const DatabaseURLHelp = "--database-url / TOOLGATE_DATABASE_URL: want postgres://… or postgresql://… (leave it unset for the SQLite file in the data directory)"

// IsDatabaseURL reports whether s is a URL --database-url accepts
// (postgres:// or postgresql://, any case).
func IsDatabaseURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// LocalLoginOff reports whether password sign-in is limited to break-glass
// accounts: single sign-on on and --local-login=false.
func (c Config) LocalLoginOff() bool { return c.OIDC.Enabled() && !c.LocalLogin }

// DBPath is where the SQLite database lives.
func (c Config) DBPath() string { return DBPath(c.DataDir) }

// DBPath is where the SQLite database of dataDir lives (for commands that
// take only a data directory).
func DBPath(dataDir string) string { return filepath.Join(dataDir, "toolgate.db") }

// SecureCookies reports whether cookies get the Secure attribute: when the
// console is reached over HTTPS, as BaseURL says. URL schemes are
// case-insensitive (RFC 3986 §3.1) and Validate accepts "HTTPS://…", so the
// comparison is too.
func (c Config) SecureCookies() bool {
	return len(c.BaseURL) >= len("https://") && strings.EqualFold(c.BaseURL[:len("https://")], "https://")
}

// Validate returns every problem with c, one per line, so a person can fix
// them all in one go.
func (c Config) Validate() error {
	var errs []error
	if _, port, err := net.SplitHostPort(c.Addr); err != nil || port == "" {
		errs = append(errs, fmt.Errorf("--addr / TOOLGATE_ADDR %q: want host:port, e.g. 127.0.0.1:8080", c.Addr))
	}
	if c.RuntimeAPIMaxConns < 0 || c.RuntimeAPIMaxConnsPerIP < 0 {
		errs = append(errs, errors.New("--runtime-api-max-conns / --runtime-api-max-conns-per-ip: want a positive number of connections"))
	}
	if c.RuntimeAPIAddr != "" {
		if _, port, err := net.SplitHostPort(c.RuntimeAPIAddr); err != nil || port == "" {
			errs = append(errs, fmt.Errorf("--runtime-api-addr / TOOLGATE_RUNTIME_API_ADDR %q: want host:port, e.g. 0.0.0.0:8081", c.RuntimeAPIAddr))
		} else if c.RuntimeAPIAddr == c.Addr && port != "0" {
			errs = append(errs, fmt.Errorf("--runtime-api-addr / TOOLGATE_RUNTIME_API_ADDR %q: the console already listens there (--addr); pick another port", c.RuntimeAPIAddr))
		}
	}
	if strings.TrimSpace(c.DataDir) == "" {
		errs = append(errs, errors.New("--data-dir / TOOLGATE_DATA_DIR is empty: name a directory"))
	}
	if c.DatabaseURL != "" && !IsDatabaseURL(c.DatabaseURL) {
		errs = append(errs, errors.New(DatabaseURLHelp))
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("--base-url / TOOLGATE_BASE_URL %q: want http(s)://host[:port][/path]", c.BaseURL))
		}
	}
	if c.SessionIdle < time.Minute {
		errs = append(errs, fmt.Errorf("--session-idle / TOOLGATE_SESSION_IDLE %s: want at least 1m", c.SessionIdle))
	}
	if c.SessionMaxAge < c.SessionIdle {
		errs = append(errs, fmt.Errorf("--session-max-age / TOOLGATE_SESSION_MAX_AGE %s: want at least the idle timeout (%s)", c.SessionMaxAge, c.SessionIdle))
	}
	if c.CallRecordsRetention < 0 {
		errs = append(errs, fmt.Errorf("--call-records-retention / TOOLGATE_CALL_RECORDS_RETENTION %s: want a positive duration, e.g. 720h", c.CallRecordsRetention))
	}
	if c.GrantLifetime != 0 && (c.GrantLifetime < time.Minute || c.GrantLifetime > 24*time.Hour) {
		errs = append(errs, fmt.Errorf("--grant-lifetime / TOOLGATE_GRANT_LIFETIME %s: want 1m to 24h, e.g. 15m", c.GrantLifetime))
	}
	if c.CallRequestLifetime != 0 && c.CallRequestLifetime < time.Minute {
		errs = append(errs, fmt.Errorf("--call-request-lifetime / TOOLGATE_CALL_REQUEST_LIFETIME %s: want at least 1m, e.g. 1h", c.CallRequestLifetime))
	}
	if c.CallPendingPerPrincipal < 0 || c.CallPendingPerTool < 0 {
		errs = append(errs, fmt.Errorf("--call-pending-per-principal and --call-pending-per-tool: want 1 or more"))
	}
	if c.WebhookRetryBase != 0 && (c.WebhookRetryBase < MinWebhookRetryBase || c.WebhookRetryBase > time.Hour) {
		errs = append(errs, fmt.Errorf("--webhook-retry-base / TOOLGATE_WEBHOOK_RETRY_BASE %s: want %s to 1h, e.g. 5s", c.WebhookRetryBase, MinWebhookRetryBase))
	}
	if c.RuntimeStaleAfter < 0 {
		errs = append(errs, fmt.Errorf("--runtime-stale-after / TOOLGATE_RUNTIME_STALE_AFTER %s: want a positive duration, e.g. 10m", c.RuntimeStaleAfter))
	}
	if c.ApproverIndependence < 0 || (c.ApproverIndependence > 0 && c.ApproverIndependence < time.Hour) {
		errs = append(errs, fmt.Errorf("--approver-independence / TOOLGATE_APPROVER_INDEPENDENCE %s: want at least 1h, e.g. 168h (7 days)", c.ApproverIndependence))
	}
	errs = c.OIDC.validate(errs, c.LocalLogin || c.OIDC.Enabled())
	if len(errs) > 0 {
		return fmt.Errorf("invalid configuration:\n  %w", joinLines(errs))
	}
	return nil
}

// WithListenAddr returns c with BaseURL defaulted from the address actually
// listened on (which differs from Addr when the port is 0).
func (c Config) WithListenAddr(addr net.Addr) Config {
	if c.BaseURL == "" {
		c.BaseURL = "http://" + addr.String()
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c
}

func joinLines(errs []error) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return errors.New(strings.Join(msgs, "\n  "))
}
