package cli

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/toolgate/toolgate/internal/telemetry"
)

// startTracing turns on OpenTelemetry traces when the standard OTEL_*
// environment names an OTLP endpoint (internal/telemetry) and says so in
// the log; the returned stop flushes buffered spans, for at most 5 s.
func startTracing(ctx context.Context, logger *slog.Logger, service string) (stop func(), err error) {
	shutdown, err := telemetry.Setup(ctx, service, version())
	if err != nil {
		return nil, err
	}
	if telemetry.Enabled(os.Getenv) {
		logger.Info("exporting traces over OTLP/HTTP", "service", service)
	}
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := shutdown(sctx); err != nil {
			logger.Warn("flushing traces", "err", err)
		}
	}, nil
}
