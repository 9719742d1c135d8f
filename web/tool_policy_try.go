package web

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/condition"
	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/views"
)

// toolPolicyTry evaluates the editor's conditions, as typed and without
// saving them, against sample arguments and a sample principal (admin,
// like the editor): HTMX gets the result fragment, a plain post the whole
// page with the values kept.
func (s *Server) toolPolicyTry(c echo.Context) error {
	ctx := c.Request().Context()
	rec, err := s.deps.Store.ToolPolicyByName(ctx, c.Param("name"))
	if err != nil {
		return err
	}
	p, form, ferrs := readPolicyForm(c, rec.Policy)
	problems, set, err := s.conditionProblems(ctx, rec.ToolName, p.Conditions)
	if err != nil {
		return err
	}
	t := views.ConditionTryVM{Args: c.FormValue("try.args"), Subject: strings.TrimSpace(c.FormValue("try.subject")),
		Groups: c.FormValue("try.groups"), Kind: c.FormValue("try.kind")}
	switch {
	case len(problems) > 0:
		for field, msg := range problems {
			t.Problem = "Nothing was evaluated: " + field + " does not compile. " + msg
		}
	case set == nil && p.PerCall == "":
		t.Problem = "There are no conditions to try: every call is allowed by them."
	default:
		tryConditions(&t, set, p.PerCall)
	}
	if isHTMX(c) {
		return render(c, http.StatusOK, views.ConditionTryResult(t))
	}
	panel, err := s.panelFor(c, rec, policyReturn(c, rec))
	if err != nil {
		return err
	}
	form.FieldErrors = maps.Clone(ferrs)
	if form.FieldErrors == nil {
		form.FieldErrors = map[string]string{}
	}
	maps.Copy(form.FieldErrors, problems)
	panel.Form, panel.Preview, panel.Try = form, policyPreview(rec, p, ferrs), &t
	return s.renderPolicyPage(c, http.StatusOK, rec, panel)
}

// tryConditions evaluates set on t's sample, with the tool's per-call
// mode, and records which rule decides or asks.
func tryConditions(t *views.ConditionTryVM, set *condition.Set, perCall string) {
	dec := json.NewDecoder(bytes.NewReader([]byte(t.Args)))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		t.Problem = "The sample arguments are not a JSON object: " + err.Error()
		return
	}
	who := principal.Principal{Kind: principal.Anonymous}
	if kind := principal.Kind(t.Kind); kind != principal.Anonymous && kind != "" {
		who = principal.New(kind, t.Subject, "", strings.FieldsFunc(t.Groups, func(r rune) bool { return r == ',' || r == ' ' }))
	}
	d := set.Evaluate(args, who).WithPerCall(perCall)
	if d.Allowed() {
		t.Allowed, t.Ask = true, d.Ask
		if d.Ask != "" && d.AskRule >= 0 {
			c := set.Conditions()[d.AskRule]
			t.AskRule, t.Effect, t.Expr, t.Message = d.AskRule+1, c.Effect, c.Expr, c.Message
		}
		return
	}
	c := set.Conditions()[d.Rule]
	t.Rule, t.Effect, t.Expr, t.Message = d.Rule+1, c.Effect, c.Expr, d.Message
	if d.Err != nil {
		t.EvalError = d.Err.Error()
	}
}
