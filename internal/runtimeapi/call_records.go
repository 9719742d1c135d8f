package runtimeapi

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/callrecord"
)

// defaultCallRecordRetention is Config.CallRecordRetention when zero.
const defaultCallRecordRetention = 30 * 24 * time.Hour

// pruneEvery is how often records older than the retention are deleted.
const pruneEvery = time.Hour

// apiCallRecords is POST /api/v1/call-records: a runtime's batch of call
// records (callrecord.Batch), authenticated by its token. A batch is
// checked whole — its size, schema, every record's values, and that each
// names a tool of this console — and stored whole or not at all: 400 or
// 413 with the reason, 204 once stored.
func (s *Service) apiCallRecords(c echo.Context) error {
	tok, err := s.runtimeToken(c)
	if err != nil {
		return err
	}
	body, err := readBatch(c, callrecord.MaxBodyBytes, "call record")
	if err != nil {
		return err
	}
	recs, err := callrecord.ParseBatch(body, s.db.Now())
	if err != nil {
		return apperr.Invalidf("Call records refused: %v.", err)
	}
	if err := s.db.RecordCalls(c.Request().Context(), tok.ID, recs); err != nil {
		return err
	}
	s.metrics.callRecords.Add(float64(len(recs)))
	return c.NoContent(http.StatusNoContent)
}

// pruneCallRecords deletes the records older than the retention, after
// rolling up the call summaries (call_summaries.go) on the same schedule.
func (s *Service) pruneCallRecords(ctx context.Context) {
	s.rollupCallSummaries(ctx)
	n, err := s.db.PruneCallRecords(ctx, s.db.Now().Add(-s.retention))
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("pruning call records", "err", err)
		}
		return
	}
	if n > 0 {
		s.log.Info("pruned call records past their retention", "count", n, "retention", s.retention)
	}
}
