package runtimeapi

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/callsummary"
)

// apiCallSummaries is POST /api/v1/call-summaries: a runtime instance's
// per-minute call summaries (callsummary.Batch), authenticated by its
// token, the instance named by X-Toolgate-Instance-Id as on a fetch. A
// batch is checked whole (size, schema, every summary's values): 400 or
// 413 with the reason, nothing stored; otherwise 204 once stored. Each
// summary replaces the instance's earlier copy of its minute, so a batch
// sent twice changes nothing; summaries of tools this console does not
// have, or of minutes past the minute retention, are left out.
func (s *Service) apiCallSummaries(c echo.Context) error {
	tok, err := s.runtimeToken(c)
	if err != nil {
		return err
	}
	body, err := readBatch(c, callsummary.MaxBodyBytes, "call summary")
	if err != nil {
		return err
	}
	now := s.db.Now()
	sums, err := callsummary.ParseBatch(body, now)
	if err != nil {
		return apperr.Invalidf("Call summaries refused: %v.", err)
	}
	instance := cleanHeader(headerValue(c.Request().Header, headerInstanceID), 128)
	if _, err := s.db.StoreCallSummaries(c.Request().Context(), tok.ID, instance, sums, now.Add(-callsummary.DefaultRetention.Minutes)); err != nil {
		return err
	}
	s.metrics.callSummaries.Add(float64(len(sums)))
	return c.NoContent(http.StatusNoContent)
}

// readBatch reads a runtime's batch body, at most limit bytes (413
// beyond, naming what).
func readBatch(c echo.Context, limit int64, what string) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, limit))
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return nil, apperr.Errorf(apperr.TooLarge, "A %s batch is at most %d bytes.", what, limit)
		}
		return nil, err
	}
	return body, nil
}

// rollupCallSummaries rolls call summaries up (minutes into hours, hours
// into days) and prunes them by grain; it runs with the call-record prune,
// hourly, which is what callsummary.ByMinuteFrom relies on.
func (s *Service) rollupCallSummaries(ctx context.Context) {
	if err := s.db.RollupCallSummaries(ctx, s.db.Now(), callsummary.DefaultRetention); err != nil && ctx.Err() == nil {
		s.log.Warn("rolling up call summaries", "err", err)
	}
}
