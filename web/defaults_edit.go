package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// defaultsEdit shows the project defaults (viewer+; the form for admins).
func (s *Server) defaultsEdit(c echo.Context) error {
	cur, err := s.deps.Store.ProjectDefaults(c.Request().Context())
	if err != nil {
		return err
	}
	m, err := s.defaultsView(c, cur, cur.Defaults, defaultsForm(cur.Defaults), nil)
	if err != nil {
		return err
	}
	if c.QueryParam("done") == "saved" {
		m.Notice = "Defaults saved. New tools start from them; existing tools change only through Apply defaults."
	}
	return render(c, http.StatusOK, views.DefaultsPage(m))
}

// defaultsView builds the page for stored record cur, showing candidate d
// (typed as form) with its preview.
func (s *Server) defaultsView(c echo.Context, cur *store.DefaultsRecord, d policy.ProjectDefaults, form views.DefaultsFormVM,
	fieldErrs map[string]string) (views.DefaultsView, error) {
	preview, err := s.defaultsPreviewVM(c, d, fieldErrs)
	if err != nil {
		return views.DefaultsView{}, err
	}
	form.FieldErrors = fieldErrs
	return views.DefaultsView{Page: s.page(c, "Project defaults"), Form: form, Version: cur.Version,
		UpdatedBy: cur.UpdatedBy, CanEdit: currentUser(c).Has(auth.RoleAdmin), Preview: preview}, nil
}

// defaultsPreviewVM counts the tools "apply defaults" with d would change.
func (s *Server) defaultsPreviewVM(c echo.Context, d policy.ProjectDefaults, fieldErrs map[string]string) (views.DefaultsPreviewVM, error) {
	tools, err := s.deps.Store.ToolStates(c.Request().Context())
	if err != nil {
		return views.DefaultsPreviewVM{}, err
	}
	p := views.DefaultsPreviewVM{Total: len(tools), Invalid: invalidLines(fieldErrs, d.Validate())}
	if len(p.Invalid) == 0 {
		p.Changed = policy.CountChanged(tools, d)
	}
	return p, nil
}

// defaultsPreview answers the live preview (HTMX fragment) or, without
// JavaScript, the whole page with the values kept.
func (s *Server) defaultsPreview(c echo.Context) error {
	cur, err := s.deps.Store.ProjectDefaults(c.Request().Context())
	if err != nil {
		return err
	}
	d, form, fe := readDefaultsForm(c, cur.Defaults)
	m, err := s.defaultsView(c, cur, d, form, fe)
	if err != nil {
		return err
	}
	if isHTMX(c) {
		return render(c, http.StatusOK, views.DefaultsPreview(m.Preview))
	}
	return render(c, http.StatusOK, views.DefaultsPage(m))
}

// defaultsSave stores the defaults (admin) with the version check.
func (s *Server) defaultsSave(c echo.Context) error {
	ctx := c.Request().Context()
	cur, err := s.deps.Store.ProjectDefaults(ctx)
	if err != nil {
		return err
	}
	d, form, fe := readDefaultsForm(c, cur.Defaults)
	if len(fe) == 0 {
		version, perr := strconv.ParseInt(c.FormValue("version"), 10, 64)
		if perr != nil {
			return apperr.Invalidf("The form has no version: reload the page.")
		}
		_, err = s.deps.Store.SaveProjectDefaults(ctx, currentUser(c).Email, version, d)
		if err == nil {
			return seeOther(c, "/defaults?done=saved")
		}
	}
	var conflict *store.DefaultsConflictError
	status := http.StatusBadRequest
	m, verr := s.defaultsView(c, cur, d, form, fe)
	switch {
	case verr != nil:
		return verr
	case errors.As(err, &conflict):
		status = http.StatusConflict
		m.Version, m.UpdatedBy = conflict.Current.Version, conflict.Current.UpdatedBy
		m.Conflict = defaultsDiff(defaultsForm(conflict.Current.Defaults), form)
	case len(fe) > 0:
		m.Errors = []views.FormError{{Message: "Some values could not be read: see the messages next to the fields."}}
	case apperr.CodeOf(err) == apperr.Invalid:
		m.Form.FieldErrors, m.Errors = fieldErrors(err)
	default:
		return err
	}
	return render(c, status, views.DefaultsPage(m))
}
