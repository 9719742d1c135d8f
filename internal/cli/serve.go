//go:build !runtimeonly

package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/listen"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/runtimeapi"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/webhook"
	"github.com/toolgate/toolgate/web"
)

// shutdownGrace is how long in-flight requests get after SIGINT/SIGTERM.
const shutdownGrace = 10 * time.Second

type serveCmd struct {
	config.Config `embed:""`
	registryFlags `embed:""`
}

// Run migrates the database, starts the console and serves until ctx ends,
// then shuts down gracefully. It prints where to go on stdout: the one-time
// setup link on first run, the sign-in page otherwise.
func (c *serveCmd) Run(ctx context.Context, env *Env) error {
	cfg := c.Config
	if err := cfg.Validate(); err != nil {
		return Exit(2, err)
	}
	logger := slog.New(slog.NewTextHandler(env.Stderr, nil))
	defer holdHeapFloor(gcHeapFloor)()
	// Listening comes first: a port taken leaves the data directory as it
	// was (nothing created, nothing migrated).
	ln, apiLn, err := listenServe(cfg, logger)
	if err != nil {
		return err
	}
	defer ln.Close()
	if apiLn != nil {
		defer apiLn.Close()
	}
	stopTracing, err := startTracing(ctx, logger, "toolgate-console")
	if err != nil {
		return Exit(2, err)
	}
	defer stopTracing()
	cfg = cfg.WithListenAddr(ln.Addr())
	fixes, err := secureDataDir(cfg.DataDir, cfg.DatabaseURL == "")
	if err != nil {
		return err
	}
	for _, f := range fixes {
		logger.Warn("permissions were looser than private; tightened", "path", f.Path,
			"was", fmt.Sprintf("%#o", f.Was), "now", fmt.Sprintf("%#o", f.Now))
	}
	db, err := createStore(ctx, cfg.DataDir, cfg.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	if cfg.ApproverIndependence > 0 {
		db.ApproverIndependence = cfg.ApproverIndependence
	}
	// Tools classified by older risk rules are re-classified like a
	// re-import before anything is served (risk.RulesVersion).
	rc, err := db.ReclassifyTools(ctx, "system:risk-rules")
	if err != nil {
		return err
	}
	if rc.Checked > 0 {
		logger.Info("re-classified tools with the current risk rules", "rules_version", risk.RulesVersion,
			"tools", rc.Checked, "raised", rc.Raised, "suspended", rc.Suspended, "lower_verdicts_kept", rc.Lowered)
	}
	// Signing keys, session cookie keys and the sign-in throttle: in the
	// data directory and memory, or shared in the database with a KEK.
	state, err := openConsoleState(ctx, db, cfg.DataDir, cfg.KEKFile)
	if err != nil {
		return err
	}
	signOn, err := singleSignOn(cfg)
	if err != nil {
		return Exit(2, err)
	}
	push, err := c.pusher(env, db, logger, state.Keys)
	if err != nil {
		return err
	}
	hooks := webhook.NewDispatcher(webhook.Config{Store: db, Logger: logger, Open: state.WebhookKEK.Open,
		BaseBackoff: cfg.WebhookRetryBase})
	api, err := runtimeapi.New(ctx, runtimeapi.Config{Store: db, Logger: logger, Keys: state.Keys,
		CallRecordRetention: cfg.CallRecordsRetention, LongPollMax: longPollMax(cfg.LongPollMax), BaseURL: cfg.BaseURL,
		GrantLifetime: cfg.GrantLifetime, CallRequestLifetime: cfg.CallRequestLifetime, Notifier: hooks,
		CallLimits: approval.Limits{PerPrincipal: cfg.CallPendingPerPrincipal, PerTool: cfg.CallPendingPerTool}})
	if err != nil {
		return err
	}
	// Held long polls are answered at once when shutting down begins, so
	// they do not keep the listeners from stopping.
	stopWaiting := context.AfterFunc(ctx, api.StopWaiting)
	defer stopWaiting()
	// web.New creates the first signing key when there is none.
	srv, err := web.New(ctx, web.Deps{Store: db, Logger: logger, Config: cfg, SessionKeys: state.SessionKeys,
		Keys: state.Keys, Throttle: state.Throttle, Pusher: push, SSO: signOn, RuntimeAPI: api, Notifier: hooks,
		Webhooks: web.WebhookDeps{Seal: state.WebhookKEK.Seal, AllowInsecure: cfg.WebhooksAllowHTTP}})
	if err != nil {
		api.Close(ctx)
		return err
	}
	hctx, stopHooks := context.WithCancel(ctx)
	hooksDone := make(chan struct{})
	go func() { defer close(hooksDone); hooks.Run(hctx) }()
	defer func() { stopHooks(); <-hooksDone }()
	if push != nil {
		logger.Info("pushing published bundles to the registry", "target", push.Target())
		pctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); push.Run(pctx) }()
		defer func() { stop(); <-done }()
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	logger.Info("listening", "addr", ln.Addr().String(), "url", cfg.BaseURL, "data_dir", cfg.DataDir,
		"database", databaseName(cfg.DataDir, cfg.DatabaseURL), "shared_state", state.Shared)
	if link := srv.SetupURL(); link != "" {
		logger.Info("first run: no users yet; the setup link below works once", "url", link)
		fmt.Fprintf(env.Stdout, "toolgate is running at %s\nFirst run: open %s to create the first admin.\n", cfg.BaseURL, link)
	} else {
		fmt.Fprintf(env.Stdout, "toolgate is running at %s\nSign in at %s/login\n", cfg.BaseURL, cfg.BaseURL)
	}
	err = serveBoth(ctx, logger, cfg, hs, ln, api, apiLn, env)
	// Requests have stopped: write the fleet records still in memory.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	api.Close(cctx)
	srv.Close(cctx)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// listenServe listens on the console's address and, when set, the runtime
// API's. Both listeners wait out accept errors that pass (listen.Patient),
// such as running out of file descriptors under a connection flood.
func listenServe(cfg config.Config, logger *slog.Logger) (ln, apiLn net.Listener, err error) {
	raw, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, nil, fmt.Errorf("serve: %w", err)
	}
	ln = listen.Patient(raw, logger, "console")
	if cfg.RuntimeAPIAddr == "" {
		return ln, nil, nil
	}
	if raw, err = net.Listen("tcp", cfg.RuntimeAPIAddr); err != nil {
		_ = ln.Close()
		return nil, nil, fmt.Errorf("serve: runtime API: %w", err)
	}
	return ln, listen.Patient(raw, logger, "runtime API"), nil
}

// serveBoth serves the console on ln and, when apiLn is set, the runtime
// API on apiLn, until ctx ends or either fails; then both shut down.
func serveBoth(ctx context.Context, logger *slog.Logger, cfg config.Config, hs *http.Server, ln net.Listener, api *runtimeapi.Service, apiLn net.Listener, env *Env) error {
	if apiLn == nil {
		return serveHTTP(ctx, logger, "console", hs, ln, shutdownGrace)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	logger.Info("runtime API listening", "addr", apiLn.Addr().String())
	fmt.Fprintf(env.Stdout, "Runtime API listening on %s\n", apiLn.Addr())
	apiErr := make(chan error, 1)
	go func() {
		total, perIP := cfg.RuntimeAPIConnLimits()
		apiErr <- serveFastHTTP(ctx, logger, "runtime API", runtimeAPIServer(api.FastHTTP(), logger, total, perIP), apiLn, shutdownGrace)
		stop()
	}()
	err := serveHTTP(ctx, logger, "console", hs, ln, shutdownGrace)
	stop()
	return errors.Join(err, <-apiErr)
}

// dataDirFlag is the --data-dir (and --database-url) of commands that only
// need the database.
type dataDirFlag struct {
	DataDir     string `name:"data-dir" env:"TOOLGATE_DATA_DIR" default:"./data" help:"Directory holding toolgate.db (and the signing keys)."`
	DatabaseURL string `name:"database-url" env:"TOOLGATE_DATABASE_URL" help:"PostgreSQL database (postgres://user:password@host:port/db?sslmode=…) instead of DATA_DIR/toolgate.db."`
}

// openStore opens an existing database: PostgreSQL when databaseURL is
// set, else toolgate.db in dataDir (made private, see secureDataDir). A
// database that does not exist, or that no migration ever ran on, is
// refused (errNoDatabase): only serve and migrate create one
// (createStore), so a mistyped --data-dir is not a fresh empty project.
// It migrates an existing database when migrate is true.
func openStore(ctx context.Context, dataDir, databaseURL string, migrate bool) (*store.DB, error) {
	if databaseURL == "" {
		if _, err := os.Stat(config.DBPath(dataDir)); errors.Is(err, fs.ErrNotExist) {
			return nil, errNoDatabase(dataDir, databaseURL)
		}
	}
	db, err := createStore(ctx, dataDir, databaseURL, false)
	if err != nil {
		return nil, err
	}
	ok, err := db.Initialized(ctx)
	if err == nil && !ok {
		err = errNoDatabase(dataDir, databaseURL)
	}
	if err == nil && migrate {
		_, err = db.Migrate(ctx)
	}
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// errNoDatabase is the one sentence for a command given a database that
// does not exist. It does not repeat a database URL, which may hold a
// password.
func errNoDatabase(dataDir, databaseURL string) error {
	if databaseURL != "" {
		return errors.New("the database --database-url names has no toolgate tables: check the URL, or create them with `toolgate migrate --database-url URL`")
	}
	return fmt.Errorf("no toolgate database in %s: check --data-dir, or create one with `toolgate migrate --data-dir %s`", dataDir, dataDir)
}

// createStore opens the database like openStore, creating it when it does
// not exist (the directory 0700 and the SQLite file 0600), for serve and
// migrate. It migrates when migrate is true.
func createStore(ctx context.Context, dataDir, databaseURL string, migrate bool) (*store.DB, error) {
	if _, err := secureDataDir(dataDir, databaseURL == ""); err != nil {
		return nil, err
	}
	var (
		db  *store.DB
		err error
	)
	if databaseURL != "" {
		if !store.IsPostgresURL(databaseURL) {
			return nil, Exit(2, errors.New(config.DatabaseURLHelp))
		}
		db, err = store.OpenURL(ctx, databaseURL)
	} else {
		db, err = store.Open(ctx, config.DBPath(dataDir))
	}
	if err != nil {
		return nil, err
	}
	if migrate {
		if _, err := db.Migrate(ctx); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	return db, nil
}
