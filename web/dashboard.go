package web

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// dashboardRecentAudit is how many audit entries the dashboard lists.
const dashboardRecentAudit = 5

// dashboard is GET /: counts from every area of the console in one cheap
// store read (no bundle preview: that would build and diff a bundle).
func (s *Server) dashboard(c echo.Context) error {
	u := currentUser(c)
	now := s.deps.Store.Now()
	f, err := s.deps.Store.Dashboard(c.Request().Context(), store.DashboardQuery{
		UserID: u.ID, SeenSince: now.Add(-s.pub.staleAfter), RecentAudit: dashboardRecentAudit})
	if err != nil {
		return err
	}
	m := views.DashboardView{Page: s.page(c, "Dashboard"), Roles: roleNames(u.Roles),
		Sources: f.Sources, RulesVersion: risk.RulesVersion, LowerVerdicts: f.LowerVerdicts,
		Pending: f.Pending, IsApprover: u.Has(auth.RoleApprover), PendingForYou: f.PendingForUser,
		Runtimes: f.Runtimes, StaleRuntimes: f.StaleRuntimes, StaleAfter: age(s.pub.staleAfter),
		Recent: auditVMs(f.Recent)}
	if m.BreakGlass, err = s.breakGlassSignIns(c, now); err != nil {
		return err
	}
	if m.LocalApprovals, m.LocalApprovalsMore, err = s.localApprovals(c, now); err != nil {
		return err
	}
	if m.Pictures, err = s.dashboardPictures(c, f, now); err != nil {
		return err
	}
	for _, class := range risk.Classes {
		row := views.DashboardClassVM{Class: class.String(), Tools: f.Tools[class.String()], Exposed: f.Exposed[class.String()]}
		m.ToolsTotal += row.Tools
		m.ExposedTotal += row.Exposed
		m.Classes = append(m.Classes, row)
	}
	if b := f.Bundle; b != nil {
		m.Bundle = &views.DashboardBundleVM{Version: b.Version, PublishedAt: consoleTime(b.IssuedAt),
			PublishedBy: b.PublishedBy, Age: age(now.Sub(b.IssuedAt)), ExpiresAt: consoleTime(b.ExpiresAt),
			Expired: !now.Before(b.ExpiresAt)}
	}
	return render(c, http.StatusOK, views.DashboardPage(m))
}

// breakGlassWindow is how far back the dashboard lists break-glass sign-ins.
const breakGlassWindow = 7 * 24 * time.Hour

// breakGlassSignIns lists the recent break-glass sign-ins for everyone to
// see: each is an emergency someone should know about.
func (s *Server) breakGlassSignIns(c echo.Context, now time.Time) ([]views.BreakGlassVM, error) {
	es, err := s.deps.Store.BreakGlassSignIns(c.Request().Context(), now.Add(-breakGlassWindow), 10)
	if err != nil {
		return nil, err
	}
	var out []views.BreakGlassVM
	for _, e := range es {
		var after struct {
			Address string `json:"address"`
		}
		_ = json.Unmarshal([]byte(e.After), &after)
		out = append(out, views.BreakGlassVM{Who: e.Actor, At: consoleTime(e.At), Address: after.Address})
	}
	return out, nil
}
