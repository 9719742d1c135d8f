package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/views"
)

// sourceNotices are the confirmations a redirect may ask for (?done=...).
var sourceNotices = map[string]string{
	"imported":   "Imported. New tools start unexposed unless the project defaults expose new READ tools; DESTRUCTIVE and PRIVILEGED tools never are.",
	"reimported": "Re-import applied. Suspended tools stay unexposed until someone reviews them.",
}

// sourcesShow is one source's page (viewer+; re-import form for admins).
func (s *Server) sourcesShow(c echo.Context) error {
	return s.renderSource(c, http.StatusOK, views.SourceFormVM{}, nil)
}

func (s *Server) renderSource(c echo.Context, status int, form views.SourceFormVM, errs []views.FormError) error {
	src, err := s.deps.Store.SourceByName(c.Request().Context(), c.Param("name"))
	if err != nil {
		return err
	}
	form.Name, form.Fixed, form.MaxMiB = src.Name, true, openapi.DefaultMaxBytes>>20
	m := views.SourceView{Page: s.page(c, src.Name), Source: sourceRow(src), BasePath: src.BasePath, Warnings: src.Warnings,
		Notice: sourceNotices[c.QueryParam("done")], CanImport: currentUser(c).Has(auth.RoleAdmin), Form: form, Errors: errs}
	for _, sk := range src.Skipped {
		m.Skipped = append(m.Skipped, views.SkippedVM{Kind: sk.Kind, Name: sk.Name, Method: sk.Method, Reason: sk.Reason})
	}
	return render(c, status, views.SourcePage(m))
}
