package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// toolPolicySave applies an ordinary edit (admin). A moved version answers
// 409 with the current values and the person's own values in a "reapply"
// form; changes that need approval and out-of-range values answer 400 with
// the form as typed.
func (s *Server) toolPolicySave(c echo.Context) error {
	ctx := c.Request().Context()
	rec, err := s.deps.Store.ToolPolicyByName(ctx, c.Param("name"))
	if err != nil {
		return err
	}
	p, form, ferrs := readPolicyForm(c, rec.Policy)
	if len(ferrs) > 0 {
		return s.policyFormProblem(c, rec, p, form, ferrs, nil)
	}
	if ferrs, _, err = s.conditionProblems(ctx, rec.ToolName, p.Conditions); err != nil {
		return err
	} else if len(ferrs) > 0 {
		return s.policyFormProblem(c, rec, p, form, ferrs, []views.FormError{{
			Message: "A condition does not compile against the tool's input schema: see the message at the expression. Nothing was saved."}})
	}
	if needsScopeRequest(rec, p) {
		return s.scopeRequestForm(c, rec, p, form)
	}
	version, err := strconv.ParseInt(c.FormValue("version"), 10, 64)
	if err != nil {
		return apperr.Invalidf("The form has no policy version: reload the page.")
	}
	_, err = s.deps.Store.SavePolicy(ctx, currentUser(c).Email, rec.ToolID, version, p)
	var conflict *store.PolicyConflictError
	switch {
	case errors.As(err, &conflict):
		return s.policyConflict(c, conflict.Current, p, form)
	case apperr.CodeOf(err) == apperr.Invalid:
		fe, errs := fieldErrors(err)
		return s.policyFormProblem(c, rec, p, form, fe, errs)
	case err != nil:
		return err
	}
	return seeOther(c, withDone(policyReturn(c, rec), "saved"))
}

// policyFormProblem re-renders the editor with the values as typed.
func (s *Server) policyFormProblem(c echo.Context, rec *store.PolicyRecord, p policy.Policy, form views.PolicyFormVM,
	fe map[string]string, errs []views.FormError) error {
	panel, err := s.panelFor(c, rec, policyReturn(c, rec))
	if err != nil {
		return err
	}
	if errs == nil {
		errs = []views.FormError{{Message: "Some values could not be read: see the messages next to the fields."}}
	}
	form.FieldErrors = fe
	panel.Form, panel.Errors, panel.Preview = form, errs, policyPreview(rec, p, fe)
	return s.renderPolicyPage(c, http.StatusBadRequest, rec, panel)
}

// policyConflict answers a stale save: current values, what differs from
// the person's values, and their values in a form at the current version.
func (s *Server) policyConflict(c echo.Context, cur *store.PolicyRecord, mine policy.Policy, form views.PolicyFormVM) error {
	panel, err := s.panelFor(c, cur, policyReturn(c, cur))
	if err != nil {
		return err
	}
	conflict := &views.PolicyConflictVM{CurrentVersion: cur.Version, UpdatedBy: cur.UpdatedBy, Diff: diffRows(cur.Policy, mine)}
	panel.Form, panel.Conflict, panel.Preview = form, conflict, policyPreview(cur, mine, nil)
	return s.renderPolicyPage(c, http.StatusConflict, cur, panel)
}
