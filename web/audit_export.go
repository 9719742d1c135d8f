package web

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/audit"
)

// auditLine is one exported entry. Before and After are embedded as JSON
// when they are JSON (they always are for entries the store writes).
type auditLine struct {
	ID       int64  `json:"id"`
	At       string `json:"at"`
	Actor    string `json:"actor"`
	Action   string `json:"action"`
	Subject  string `json:"subject"`
	Before   any    `json:"before,omitempty"`
	After    any    `json:"after,omitempty"`
	PrevHash string `json:"prev_hash"`
	Hash     string `json:"hash"`
}

func jsonOrText(s string) any {
	if s == "" {
		return nil
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return s
}

// auditExport downloads every entry the filter matches, oldest first, as
// JSON Lines (one object per line), streamed in batches.
func (s *Server) auditExport(c echo.Context) error {
	f, _, err := auditFilter(c)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "application/x-ndjson; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="toolgate-audit.jsonl"`)
	c.Response().WriteHeader(http.StatusOK)
	enc := json.NewEncoder(c.Response())
	err = s.deps.Store.EachAudit(c.Request().Context(), f, func(e audit.Entry) error {
		return enc.Encode(auditLine{ID: e.ID, At: e.At.UTC().Format(audit.TimeLayout), Actor: e.Actor, Action: e.Action,
			Subject: e.Subject, Before: jsonOrText(e.Before), After: jsonOrText(e.After), PrevHash: e.PrevHash, Hash: e.Hash})
	})
	if err != nil {
		// The status is sent; all we can do is log and cut the download.
		s.logInternal(c, fmt.Errorf("audit export: %w", err))
	}
	return nil
}
