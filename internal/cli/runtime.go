package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/agentauth"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/listen"
	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/runtime"
)

// runtimeCmd is `toolgate runtime`: fetch and verify bundles from the
// console and serve their tools to agents over MCP (streamable HTTP on a
// loopback address, or stdio for clients that start the runtime).
type runtimeCmd struct {
	Console         string `name:"console" env:"TOOLGATE_CONSOLE_URL" placeholder:"URL" help:"Console base URL, e.g. http://127.0.0.1:8080. Required unless --bundle-source names a registry; with both, the runtime pulls from the registry and reports to the console's fleet view."`
	BundleSource    string `name:"bundle-source" env:"TOOLGATE_BUNDLE_SOURCE" placeholder:"oci://HOST[:PORT]/REPO" help:"Pull bundles from this OCI registry's 'latest' tag instead of the console; verified exactly as from the console, and fresh only while the console's signed timestamp there names the bundle served."`
	RegistryCreds   string `name:"registry-credentials-file" env:"TOOLGATE_REGISTRY_CREDENTIALS_FILE" placeholder:"FILE" help:"JSON {\"username\",\"password\"} for the registry. Or set TOOLGATE_REGISTRY_USERNAME and TOOLGATE_REGISTRY_PASSWORD."`
	RegistryPlain   bool   `name:"registry-plain-http" help:"Talk plain HTTP to the registry (a loopback registry in development; production registries use TLS)."`
	TokenFile       string `name:"token-file" env:"TOOLGATE_RUNTIME_TOKEN_FILE" placeholder:"FILE" help:"File holding the runtime token ('toolgate token create'). Or set TOOLGATE_RUNTIME_TOKEN."`
	DataDir         string `name:"data-dir" env:"TOOLGATE_RUNTIME_DATA_DIR" default:"./runtime-data" help:"Data directory (not the console's): the runtime keeps its last good bundle and trusted keys in DATA_DIR/runtime."`
	Key             string `name:"key" placeholder:"JWKS_FILE" help:"Pinned public keys bundles must be signed with ('toolgate keys export')."`
	TrustOnFirstUse bool   `name:"trust-on-first-use" help:"Without --key: fetch the console's keys once from /api/v1/keys and pin them in DATA_DIR/runtime/trusted-keys.json."`
	Name            string `name:"name" env:"TOOLGATE_RUNTIME_NAME" placeholder:"NAME" help:"Name shown in the console's fleet view (default: host name)."`

	Stdio          bool          `name:"stdio" help:"Serve MCP on stdin/stdout (for clients that start the runtime, e.g. Claude Desktop) instead of HTTP."`
	StdioDrain     time.Duration `name:"stdio-drain" default:"30s" help:"With --stdio: once stdin ends, how long to keep answering the requests already read before exiting."`
	MCPAddr        string        `name:"mcp-addr" default:"127.0.0.1:8765" help:"Address of the streamable HTTP MCP endpoint (path /mcp): loopback, or beyond it with --auth-issuer or --agent-tokens and --tls-cert/--tls-key."`
	AllowedOrigins []string      `name:"mcp-allowed-origin" placeholder:"ORIGIN" help:"Browser origin (http(s)://host[:port]) allowed to use the MCP endpoint besides loopback ones; repeat or separate with commas. Requests with any other Origin get 403."`
	MetricsAddr    string        `name:"metrics-addr" default:"127.0.0.1:9464" help:"Loopback address of the Prometheus metrics (path /metrics); empty turns them off."`

	PollInterval time.Duration `name:"poll-interval" default:"30s" help:"Mean time between bundle fetches."`
	PollJitter   float64       `name:"poll-jitter" default:"0.2" help:"Fraction the poll interval varies by either way."`
	DecisionWait time.Duration `name:"decision-wait" env:"TOOLGATE_DECISION_WAIT" default:"60s" help:"How long a call that needs a person's decision (per-call confirm/approve) waits for it before answering APPROVAL_PENDING; at least 1s."`
	MaxStaleness time.Duration `name:"max-staleness" default:"1h" help:"Unconfirmed by the console (or, from a registry, by its signed timestamp) for longer than this, DESTRUCTIVE and PRIVILEGED tools are refused. From a registry it must exceed the console's --registry-timestamp-interval plus the poll interval."`

	Credentials              string `name:"credentials" env:"TOOLGATE_CREDENTIALS_FILE" placeholder:"FILE" help:"Credentials file per source (see README). Or put the same JSON in TOOLGATE_CREDENTIALS."`
	AllowInsecureCredentials bool   `name:"allow-insecure-credentials" help:"Send credentials to http:// origins too. Local development only."`
	LogLevel                 string `name:"log-level" default:"info" enum:"debug,info,warn,error" help:"Log level (logs go to stderr)."`

	runtimeAuthFlags `embed:""`
}

// Help is shown under `toolgate runtime --help`.
func (c *runtimeCmd) Help() string {
	return `The runtime token is read from --token-file or TOOLGATE_RUNTIME_TOKEN, never from the command line.
Credentials: {"sources":{"SOURCE":{"bearer":"env:VAR"}}}; values "env:NAME" are read from the environment.
Logs (stderr) have one line per tool call: tool, class, status, attempts, duration_ms, and the principal (who
called, with groups) when agents authenticate; never bodies or secrets. INFO lines are written in batches, at
most 100 ms late; WARN and ERROR lines at once.
Agents authenticate with --auth-issuer/--auth-audience (JWT access tokens of an OpenID provider) or
--agent-tokens FILE ('toolgate agent-token add'); the endpoint may then listen beyond loopback, over TLS only
(--tls-cert/--tls-key). Over --stdio the caller is --stdio-principal (default: the OS user).
From an OCI registry: --bundle-source oci://HOST[:PORT]/REPO --key keys.json pulls the 'latest' tag and verifies
it exactly as a bundle from the console; add --console and a token to keep reporting to the fleet view. Only the
console's signed timestamp beside the bundle confirms it is the newest: without one (a console that pushes none)
the bundle turns stale --max-staleness after it was issued, and a timestamp naming a version the registry does not
serve makes it stale at once.`
}

// Run starts the runtime and serves until ctx ends (HTTP) or the client
// closes stdin (stdio).
func (c *runtimeCmd) Run(ctx context.Context, env *Env) error {
	// One line per tool call: buffered, off the call's path (logbuffer.go).
	logger, closeLog := bufferedLogger(env.Stderr, runtimeLogLevel(c.LogLevel))
	defer closeLog()
	opts, err := c.options(env, logger)
	if err != nil {
		return Exit(2, fmt.Errorf("runtime: %w", err))
	}
	ep, err := c.endpoint(logger)
	if err != nil {
		return Exit(2, fmt.Errorf("runtime: %w", err))
	}
	// Listening comes first: a port taken leaves the data directory as it
	// was (runtime.New creates DATA_DIR/runtime).
	mcpLn, metricsLn, err := c.listen(logger)
	if err != nil {
		return Exit(2, err)
	}
	defer closeListeners(mcpLn, metricsLn)
	stopTracing, err := startTracing(ctx, logger, "toolgate-runtime")
	if err != nil {
		return Exit(2, err)
	}
	defer stopTracing()
	rt, err := runtime.New(opts)
	if err != nil {
		return Exit(2, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// One fetch before serving, so the first tools/list already has tools
	// when the console is up; Run keeps polling afterwards.
	if err := rt.Sync(ctx); err != nil {
		logger.Warn("first bundle fetch failed", "err", err, "serving_version", rt.Status().Version)
	}
	syncDone := make(chan struct{})
	go func() { defer close(syncDone); _ = rt.Run(ctx) }()
	defer func() { cancel(); <-syncDone }()

	metricsDone := startMetrics(ctx, logger, rt, metricsLn)
	// Run returns only once the metrics server has let go of its port.
	defer func() { cancel(); <-metricsDone }()
	if c.Stdio {
		// Piped input ends right after the last request; ServeStdio still
		// answers everything it read before returning.
		return rt.ServeStdio(ctx, env.Stdin, env.Stdout, c.StdioDrain)
	}
	return c.serveMCP(ctx, env, logger, rt, ep, mcpLn, metricsLn)
}

// serveMCP serves the streamable HTTP endpoint on mcpLn (behind ep when
// agents authenticate) until ctx ends, after printing where it is.
func (c *runtimeCmd) serveMCP(ctx context.Context, env *Env, logger *slog.Logger, rt *runtime.Runtime,
	ep *agentauth.Endpoint, mcpLn, metricsLn net.Listener) error {
	mux := http.NewServeMux()
	fmt.Fprintf(env.Stdout, "toolgate runtime %s %s\nMCP endpoint: %s://%s/mcp\n", rt.InstanceID(), servingLine(rt.Status()),
		c.scheme(), mcpLn.Addr())
	if ep == nil {
		mux.Handle("/mcp", rt.MCPHandler())
	} else {
		ep.Handle(mux, "/mcp", rt.MCPHandler())
		fmt.Fprintf(env.Stdout, "Agents authenticate: resource %s\n", authLine(ep))
	}
	if metricsLn != nil {
		fmt.Fprintf(env.Stdout, "Metrics: http://%s/metrics\n", metricsLn.Addr())
	}
	return serveRuntimeHTTP(ctx, logger, "mcp", mcpLn, mux)
}

// servingLine says what the runtime serves as it starts: a bundle, or
// nothing yet (it keeps retrying, see Runtime.Run).
func servingLine(st runtime.Status) string {
	if st.Version == 0 {
		return "serving no tools yet: no bundle (retrying in the background; the log says why)"
	}
	return fmt.Sprintf("serving bundle v%d", st.Version)
}

// listen listens on --mcp-addr (not with --stdio) and --metrics-addr (when
// set); a listener not asked for is nil.
func (c *runtimeCmd) listen(logger *slog.Logger) (mcpLn, metricsLn net.Listener, err error) {
	if c.MetricsAddr != "" {
		if metricsLn, err = listenRuntimeLoopback(logger, "--metrics-addr", c.MetricsAddr); err != nil {
			return nil, nil, err
		}
	}
	if !c.Stdio {
		if mcpLn, err = c.listenMCP(logger, c.MCPAddr); err != nil {
			closeListeners(metricsLn)
			return nil, nil, err
		}
	}
	return mcpLn, metricsLn, nil
}

// closeListeners closes the listeners that are not nil.
func closeListeners(lns ...net.Listener) {
	for _, ln := range lns {
		if ln != nil {
			_ = ln.Close()
		}
	}
}

// startMetrics serves the runtime's metrics on ln until ctx ends. The
// channel returned is closed once that server has stopped (at once when ln
// is nil: --metrics-addr is empty).
func startMetrics(ctx context.Context, logger *slog.Logger, rt *runtime.Runtime, ln net.Listener) <-chan struct{} {
	stopped := make(chan struct{})
	if ln == nil {
		close(stopped)
		return stopped
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", rt.MetricsHandler())
	go func() {
		defer close(stopped)
		if err := serveRuntimeHTTP(ctx, logger, "metrics", ln, mux); err != nil {
			logger.Warn("metrics server stopped", "err", err)
		}
	}()
	logger.Info("metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return stopped
}

// options turns flags and environment into runtime.Options; secrets come
// from files or the environment only.
func (c *runtimeCmd) options(env *Env, logger *slog.Logger) (runtime.Options, error) {
	var token string
	if c.Console != "" || c.BundleSource == "" {
		var err error
		if token, err = c.token(env); err != nil {
			return runtime.Options{}, err
		}
	}
	opts := runtime.Options{ConsoleURL: c.Console, BundleSource: c.BundleSource, Token: token, Name: c.Name, DataDir: c.DataDir,
		TrustOnFirstUse: c.TrustOnFirstUse, PollInterval: c.PollInterval, PollJitter: c.PollJitter,
		MaxStaleness: c.MaxStaleness, DecisionWait: c.DecisionWait, Logger: logger, Version: version(), AllowedOrigins: c.AllowedOrigins,
		Executor: executor.Options{AllowInsecureCredentials: c.AllowInsecureCredentials}}
	if err := c.check(c.Stdio); err != nil {
		return opts, err
	}
	if c.DecisionWait < time.Second {
		return opts, fmt.Errorf("--decision-wait %s: want at least 1s", c.DecisionWait)
	}
	if c.Stdio {
		opts.StdioPrincipal = c.stdioPrincipal(env.Getenv)
	}
	if opts.Name == "" {
		opts.Name, _ = os.Hostname()
	}
	if c.BundleSource != "" {
		creds, err := oci.LoadCredentials(c.RegistryCreds, env.Getenv)
		if err != nil {
			return opts, err
		}
		opts.Registry = oci.Options{Credentials: creds, PlainHTTP: c.RegistryPlain}
	}
	if c.Key != "" {
		if c.TrustOnFirstUse {
			return opts, errors.New("--key and --trust-on-first-use exclude each other: pinned keys are already trusted")
		}
		keys, err := readKeySet(c.Key)
		if err != nil {
			return opts, fmt.Errorf("--key: %w", err)
		}
		opts.TrustedKeys = &keys
	}
	switch {
	case c.Credentials != "":
		creds, err := executor.LoadCredentials(c.Credentials, env.Getenv)
		if err != nil {
			return opts, fmt.Errorf("--credentials: %w", err)
		}
		opts.Executor.Credentials = creds
	case env.Getenv("TOOLGATE_CREDENTIALS") != "":
		creds, err := executor.ParseCredentials([]byte(env.Getenv("TOOLGATE_CREDENTIALS")), env.Getenv)
		if err != nil {
			return opts, fmt.Errorf("TOOLGATE_CREDENTIALS: %w", err)
		}
		opts.Executor.Credentials = creds
	}
	return opts, nil
}

func (c *runtimeCmd) token(env *Env) (string, error) {
	if c.TokenFile != "" {
		raw, err := os.ReadFile(c.TokenFile)
		if err != nil {
			return "", fmt.Errorf("reading --token-file: %w", err)
		}
		if t := strings.TrimSpace(string(raw)); t != "" {
			return t, nil
		}
		return "", fmt.Errorf("--token-file %s is empty", c.TokenFile)
	}
	if t := strings.TrimSpace(env.Getenv("TOOLGATE_RUNTIME_TOKEN")); t != "" {
		return t, nil
	}
	return "", errors.New("no runtime token: use --token-file FILE or set TOOLGATE_RUNTIME_TOKEN")
}

// listenRuntimeLoopback listens on addr after checking it is a loopback
// address (checkLoopback), waiting out accept errors that pass
// (listen.Patient).
func listenRuntimeLoopback(logger *slog.Logger, flag, addr string) (net.Listener, error) {
	if err := checkLoopback(flag, addr); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("runtime: %s: %w", flag, err)
	}
	return listen.Patient(ln, logger, strings.TrimPrefix(flag, "--")), nil
}

// serveRuntimeHTTP serves h on ln until ctx ends. Connected MCP clients
// keep their streams open, so running out of the shutdown grace is the
// normal end here, not an error.
func serveRuntimeHTTP(ctx context.Context, logger *slog.Logger, name string, ln net.Listener, h http.Handler) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	if err := serveHTTP(ctx, logger, name, hs, ln, 5*time.Second); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("runtime: serving %s: %w", ln.Addr(), err)
	}
	return nil
}

func runtimeLogLevel(s string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return slog.LevelInfo
	}
	return l
}
