package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// sourcesList shows every source with counts by class (viewer+), and the
// import form to admins.
func (s *Server) sourcesList(c echo.Context) error {
	return s.renderSources(c, http.StatusOK, views.SourceFormVM{}, nil)
}

func (s *Server) renderSources(c echo.Context, status int, form views.SourceFormVM, errs []views.FormError) error {
	srcs, err := s.deps.Store.ListSources(c.Request().Context())
	if err != nil {
		return err
	}
	form.MaxMiB = openapi.DefaultMaxBytes >> 20
	m := views.SourcesView{Page: s.page(c, "Sources"), CanImport: currentUser(c).Has(auth.RoleAdmin), Form: form, Errors: errs}
	for _, src := range srcs {
		m.Sources = append(m.Sources, sourceRow(src))
	}
	return render(c, status, views.SourcesPage(m))
}

func sourceRow(src *store.Source) views.SourceRowVM {
	row := views.SourceRowVM{Name: src.Name, Title: src.Title, SpecVersion: src.SpecVersion, Origin: src.Origin,
		Revision: src.Revision, ImportedAt: src.ImportedAt.Format("2006-01-02 15:04 MST"), ImportedBy: src.ImportedBy,
		Total: src.Total(), Exposed: src.Exposed, Removed: src.Removed}
	for _, cl := range risk.Classes {
		row.Counts = append(row.Counts, views.RiskCountVM{Class: cl.String(), N: src.Counts[cl]})
	}
	return row
}
