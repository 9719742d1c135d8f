package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// What the console's and the runtime's servers share (the runtime-only
// build links this file, not serve.go).

// serveHTTP serves hs on ln until ctx ends, then shuts down: requests in
// flight get grace to finish, and connections still open after it (MCP
// streams never end by themselves) are closed, so nothing of the server
// outlives the call. It returns the error that stopped serving, or the
// shutdown's error (context.DeadlineExceeded when grace ran out). name
// tells the servers of one process apart in the log.
func serveHTTP(ctx context.Context, logger *slog.Logger, name string, hs *http.Server, ln net.Listener, grace time.Duration) error {
	return serveUntilDone(ctx, logger, name, ln, grace, hs.Serve, func(ctx context.Context) error {
		err := hs.Shutdown(ctx)
		if err != nil {
			_ = hs.Close()
		}
		return err
	})
}

// serveUntilDone runs serve on ln until ctx ends, then shutdown with a
// fresh grace period: ctx is already done, yet requests in flight still
// deserve their grace.
func serveUntilDone(ctx context.Context, logger *slog.Logger, name string, ln net.Listener, grace time.Duration,
	serve func(net.Listener) error, shutdown func(context.Context) error) error {
	errc := make(chan error, 1)
	go func() { errc <- serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down", "server", name)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	shutErr := shutdown(sctx)
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
		return err
	}
	logger.Info("stopped", "server", name)
	return shutErr
}

// checkLoopback refuses a listen address reachable from other machines, for
// servers without authentication of their own: the runtime's MCP endpoint
// (it calls tools with the runtime's credentials), its metrics, and the
// sample API (a well-known token, endpoints that reconfigure it).
func checkLoopback(flag, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q: %w", flag, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%s %q is not a loopback address (use 127.0.0.1 or [::1])", flag, addr)
	}
	return nil
}
