package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/views"
)

// toolPolicyPreview explains the editor's current values without saving
// them: HTMX gets the preview fragment, a plain form post (the Preview
// button without JavaScript) the whole page with the values kept.
func (s *Server) toolPolicyPreview(c echo.Context) error {
	rec, err := s.deps.Store.ToolPolicyByName(c.Request().Context(), c.Param("name"))
	if err != nil {
		return err
	}
	p, form, ferrs := readPolicyForm(c, rec.Policy)
	if len(ferrs) == 0 {
		// Conditions are type-checked as they are typed, like at save.
		if ferrs, _, err = s.conditionProblems(c.Request().Context(), rec.ToolName, p.Conditions); err != nil {
			return err
		}
	}
	preview := policyPreview(rec, p, ferrs)
	if isHTMX(c) {
		return render(c, http.StatusOK, views.PolicyPreview(preview))
	}
	panel, err := s.panelFor(c, rec, policyReturn(c, rec))
	if err != nil {
		return err
	}
	form.FieldErrors = ferrs
	panel.Form, panel.Preview = form, preview
	return s.renderPolicyPage(c, http.StatusOK, rec, panel)
}
