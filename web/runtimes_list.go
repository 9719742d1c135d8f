package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/views"
)

// runtimesList is GET /runtimes: every instance seen fetching bundles, how
// far behind the current version it is, and whether it went quiet for
// longer than the configured window (--runtime-stale-after).
func (s *Server) runtimesList(c echo.Context) error {
	ctx := c.Request().Context()
	instances, err := s.deps.Store.ListRuntimeInstances(ctx)
	if err != nil {
		return err
	}
	m := views.RuntimesView{Page: s.page(c, "Runtimes"), StaleAfter: s.pub.staleAfter.String(), IsAdmin: currentUser(c).Has(auth.RoleAdmin)}
	if cur, err := s.deps.Store.LatestBundle(ctx); err == nil {
		m.CurrentVersion = cur.Version
	} else if apperr.CodeOf(err) != apperr.NotFound {
		return err
	}
	now := s.deps.Store.Now()
	for _, in := range instances {
		row := views.RuntimeRow{Name: in.Name, InstanceID: in.InstanceID, TokenName: in.TokenName, LastSeen: consoleTime(in.LastSeen),
			Version: in.Version, Stale: now.Sub(in.LastSeen) > s.pub.staleAfter, RemoteAddr: in.RemoteAddr}
		if m.CurrentVersion > in.Version {
			row.Behind = m.CurrentVersion - in.Version
		}
		m.Runtimes = append(m.Runtimes, row)
	}
	return render(c, http.StatusOK, views.RuntimesPage(m))
}
