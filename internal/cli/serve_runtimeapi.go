//go:build !runtimeonly

package cli

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/runtimeapi"
)

// runtimeAPIServer is the server of --runtime-api-addr (runtimeapi.
// Service.FastHTTP), with limits like the console's http.Server. Runtimes send
// GET requests with a few short headers and no body (and POST batches of
// call records, bounded by callrecord.MaxBodyBytes), so a connection has
// preAuthRead to send its first one; one refused 401/403 is closed at once
// (the API's error writer), and only a runtime that has a token keeps an
// idle connection. At most total connections are open at once and perIP
// from one address: beyond them fasthttp answers 503 or 429 and closes.
func runtimeAPIServer(h fasthttp.RequestHandler, logger *slog.Logger, total, perIP int) *fasthttp.Server {
	return &fasthttp.Server{
		Handler:                      h,
		NoDefaultServerHeader:        true,
		NoDefaultContentType:         true,
		Concurrency:                  total,
		MaxConnsPerIP:                perIP,
		ReadTimeout:                  preAuthRead, // the request: a head and no body
		WriteTimeout:                 time.Minute, // a large bundle to a slow runtime
		IdleTimeout:                  2 * time.Minute,
		ReadBufferSize:               16 << 10,                // the largest request head accepted
		MaxRequestBodySize:           callrecord.MaxBodyBytes, // the one body the API takes: a call record batch
		DisablePreParseMultipartForm: true,
		CloseOnShutdown:              true,
		ErrorHandler:                 runtimeapi.RequestError,
		// fasthttp logs every request it could not read (malformed, too
		// large, cut off) with the client's bytes: anyone could fill the
		// log at warn. net/http, the console's listener, logs none.
		Logger: slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}
}

// preAuthRead is how long a new connection to the runtime API has to send
// its request, and any request to arrive once its first byte has.
const preAuthRead = 5 * time.Second

// serveFastHTTP serves fs on ln until ctx ends, then shuts down like
// serveHTTP: requests in flight get grace to finish.
func serveFastHTTP(ctx context.Context, logger *slog.Logger, name string, fs *fasthttp.Server, ln net.Listener, grace time.Duration) error {
	return serveUntilDone(ctx, logger, name, ln, grace, fs.Serve, fs.ShutdownWithContext)
}

// longPollMax is --long-poll-max as runtimeapi.Config takes it: 0 there
// means the default, so the flag's 0 (off) becomes negative.
func longPollMax(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}
