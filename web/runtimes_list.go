package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// runtimesPageSize is how many instances one Runtimes page shows.
const runtimesPageSize = 50

// runtimesList is GET /runtimes: the instances seen fetching bundles, a page
// at a time, most recently seen first: how far behind the current version
// each is, whether it went quiet for longer than the configured window
// (--runtime-stale-after), the last refusal it reported, and which tokens
// had instance rows evicted to stay under their bound; the bundle schemas
// each reads, and what the current version's v1 form leaves out.
func (s *Server) runtimesList(c echo.Context) error {
	ctx := c.Request().Context()
	page, _ := strconv.Atoi(c.QueryParam("page"))
	page = max(page, 1)
	instances, total, err := s.deps.Store.RuntimeInstancesPage(ctx, runtimesPageSize, (page-1)*runtimesPageSize)
	if err != nil {
		return err
	}
	m := views.RuntimesView{Page: s.page(c, "Runtimes"), StaleAfter: s.pub.staleAfter.String(), IsAdmin: currentUser(c).Has(auth.RoleAdmin),
		Total: total, PageNo: page, Pages: max((total+runtimesPageSize-1)/runtimesPageSize, 1), PerToken: s.instancesPerToken()}
	if page > 1 {
		m.PrevURL = "/runtimes?page=" + strconv.Itoa(page-1)
	}
	if page < m.Pages {
		m.NextURL = "/runtimes?page=" + strconv.Itoa(page+1)
	}
	now := s.deps.Store.Now()
	cur, err := s.deps.Store.LatestBundleSummary(ctx)
	switch {
	case apperr.CodeOf(err) == apperr.NotFound:
	case err != nil:
		return err
	default:
		m.CurrentVersion = cur.Version
		if err := s.v1FormOf(c, &m); err != nil {
			return err
		}
		if !now.Before(cur.ExpiresAt) {
			// Runtimes refuse every tool of an expired bundle (R11), and
			// nothing but a publish ends that.
			m.CurrentExpiredAt = consoleTime(cur.ExpiresAt)
		}
	}
	tokens, err := s.deps.Store.ListRuntimeTokens(ctx)
	if err != nil {
		return err
	}
	m.Evictions = evictionRows(tokens)
	if m.Fleet, err = s.fleetVM(c, m.CurrentVersion, now); err != nil {
		return err
	}
	for _, in := range instances {
		row := views.RuntimeRow{Name: in.Name, InstanceID: in.InstanceID, TokenName: in.TokenName, LastSeen: consoleTime(in.LastSeen),
			Version: in.Version, Stale: now.Sub(in.LastSeen) > s.pub.staleAfter, RemoteAddr: in.RemoteAddr, Refused: in.Refused}
		row.Reads, row.V1Only = schemasText(in.Schemas)
		if row.V1Only {
			m.V1OnlyRuntimes++
		}
		if m.CurrentVersion > in.Version {
			row.Behind = m.CurrentVersion - in.Version
		}
		m.Runtimes = append(m.Runtimes, row)
	}
	return render(c, http.StatusOK, views.RuntimesPage(m))
}

func evictionRows(tokens []*store.RuntimeToken) []views.EvictionRow {
	var out []views.EvictionRow
	for _, t := range tokens {
		if t.InstancesEvicted == 0 {
			continue
		}
		row := views.EvictionRow{TokenName: t.Name, Count: t.InstancesEvicted}
		if t.LastEvictedAt != nil {
			row.LastAt = consoleTime(*t.LastEvictedAt)
		}
		out = append(out, row)
	}
	return out
}

// instancesPerToken is the bound of instance rows per token the runtime
// API keeps (the store's default when the console serves no API).
func (s *Server) instancesPerToken() int {
	if s.deps.RuntimeAPI == nil {
		return store.DefaultInstancesPerToken
	}
	return s.deps.RuntimeAPI.InstancesPerToken()
}
