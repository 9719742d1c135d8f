package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// healthz says the process is alive; it touches nothing else.
func (s *Server) healthz(c echo.Context) error {
	return c.String(http.StatusOK, "ok\n")
}

// readyz says whether the console can serve: the database answers and its
// schema is at the version this binary expects. The reason is logged, not
// shown.
func (s *Server) readyz(c echo.Context) error {
	ctx := c.Request().Context()
	err := s.deps.Store.Ping(ctx)
	if err == nil {
		err = s.deps.Store.MigrationsCurrent(ctx)
	}
	if err != nil {
		s.deps.Logger.Warn("not ready", "err", err)
		return c.String(http.StatusServiceUnavailable, "not ready\n")
	}
	return c.String(http.StatusOK, "ready\n")
}
