package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// bundlesNotices are the ?done= messages after a redirect.
var bundlesNotices = map[string]string{
	"published":  "Published. Runtimes get the new bundle on their next fetch.",
	"rolledback": "Old content republished as a new version. Tools the approval gate left out are listed with the reason.",
	"retrying":   "The push to the registry is retried now.",
}

// bundlesPage is GET /bundles: current version, compare and history, and a
// placeholder that loads the preview of the next one (bundlesNext) once the
// page is shown. Everyone may read it; only admins see the forms.
func (s *Server) bundlesPage(c echo.Context) error {
	m, err := s.bundlesView(c)
	if err != nil {
		return err
	}
	m.Notice = bundlesNotices[c.QueryParam("done")]
	return render(c, http.StatusOK, views.BundlesPage(m))
}

func (s *Server) bundlesView(c echo.Context) (views.BundlesView, error) {
	ctx := c.Request().Context()
	m := views.BundlesView{Page: s.page(c, "Bundles"), CanPublish: currentUser(c).Has(auth.RoleAdmin)}
	history, err := s.deps.Store.ListBundles(ctx)
	if err != nil {
		return m, err
	}
	for i, b := range history {
		row := bundleRow(b)
		row.Current = i == 0
		m.History = append(m.History, row)
	}
	if err := s.addPushStates(c, m.History); err != nil {
		return m, err
	}
	if s.deps.Pusher != nil {
		m.Registry = s.deps.Pusher.Target()
	}
	if len(m.History) > 0 {
		m.Current = &m.History[0]
	}
	return m, nil
}

func bundleRow(b *store.BundleRecord) views.BundleRow {
	return views.BundleRow{Version: b.Version, IssuedAt: consoleTime(b.IssuedAt), ExpiresAt: consoleTime(b.ExpiresAt),
		PublishedBy: b.PublishedBy, Note: b.Note, ToolCount: b.ToolCount, KeyID: b.KeyID, RollbackOf: b.RollbackOf,
		Withheld: withheldRows(b.Withheld)}
}

// withheldRows converts the gate's left-out tools for the views.
func withheldRows(w []store.WithheldTool) []views.WithheldRow {
	var out []views.WithheldRow
	for _, t := range w {
		out = append(out, views.WithheldRow{Tool: t.Tool, Reason: t.Reason})
	}
	return out
}

// changesView converts a bundle diff for the views.
func changesView(ch bundle.Changes) views.ChangesView {
	v := views.ChangesView{ToolsAdded: ch.ToolsAdded, ToolsRemoved: ch.ToolsRemoved, SourcesAdded: ch.SourcesAdded,
		SourcesRemoved: ch.SourcesRemoved, SourcesChanged: ch.SourcesChanged, Empty: ch.Empty()}
	for _, t := range ch.ToolsChanged {
		row := views.ToolChangeRow{Tool: t.Tool, Definition: t.Definition}
		if t.RiskChanged() {
			row.RiskBefore, row.RiskAfter = t.RiskBefore, t.RiskAfter
		}
		for _, f := range t.Policy {
			row.Policy = append(row.Policy, views.FieldChangeRow{Field: f.Field, Before: f.Before, After: f.After})
		}
		v.ToolsChanged = append(v.ToolsChanged, row)
	}
	return v
}

// consoleTime is how the publishing pages show times: UTC, to the minute.
func consoleTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
