package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/condition"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// scopeForm is the editor's view of groups and conditions: the groups
// comma separated, the conditions and one blank row to add another.
func scopeForm(p policy.Policy) (string, []views.ConditionFormVM) {
	rows := make([]views.ConditionFormVM, 0, len(p.Conditions)+1)
	for _, c := range p.Conditions {
		rows = append(rows, views.ConditionFormVM{Effect: c.Effect, Expr: c.Expr, Message: c.Message})
	}
	if len(rows) < policy.MaxConditions {
		rows = append(rows, views.ConditionFormVM{Effect: policy.ConditionDeny})
	}
	return strings.Join(p.Groups, ", "), rows
}

// readScope reads the groups and the condition rows (conditions.N.effect,
// .expr, .message); a row with neither expression nor message is left
// out, so the blank row adds nothing.
func readScope(c echo.Context) ([]string, []policy.Condition) {
	var groups []string
	for g := range strings.SplitSeq(c.FormValue("groups"), ",") {
		if g = strings.TrimSpace(g); g != "" && !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	var conds []policy.Condition
	for i := range policy.MaxConditions + 1 {
		prefix := "conditions." + strconv.Itoa(i) + "."
		cond := policy.Condition{Effect: c.FormValue(prefix + "effect"),
			Expr: strings.TrimSpace(c.FormValue(prefix + "expr")), Message: strings.TrimSpace(c.FormValue(prefix + "message"))}
		if cond.Expr != "" || cond.Message != "" {
			conds = append(conds, cond)
		}
	}
	return groups, conds
}

// conditionProblems type-checks conds against the input schema of tool
// name as the executor will compile them; a problem is keyed by the
// condition's field ("conditions[1]") and says where in the expression.
func (s *Server) conditionProblems(ctx context.Context, name string, conds []policy.Condition) (map[string]string, *condition.Set, error) {
	if len(conds) == 0 {
		return nil, nil, nil
	}
	t, err := s.deps.Store.ToolByName(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	schema := t.Operation.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	set, err := condition.Compile(schema, conds)
	var ce *condition.CompileError
	switch {
	case errors.As(err, &ce):
		msg := ce.Message
		if ce.Line > 0 {
			msg = fmt.Sprintf("Line %d, column %d: %s", ce.Line, ce.Column, ce.Message)
		}
		return map[string]string{policy.ConditionField(ce.Index): msg}, nil, nil
	case err != nil:
		return nil, nil, err
	}
	return nil, set, nil
}

// onlyScopeDiffers reports whether a and b differ in groups, conditions
// and per-call mode only (who may call, with which arguments, asked how).
func onlyScopeDiffers(a, b policy.Policy) bool {
	a.Groups, a.Conditions, a.PerCall = b.Groups, b.Conditions, b.PerCall
	return policy.Equal(a, b)
}

// needsScopeRequest reports whether saving p would widen the groups or
// loosen the conditions of an exposed risky tool and change nothing else:
// then the editor's save becomes a change request (R15 through R10)
// instead of a refusal.
func needsScopeRequest(rec *store.PolicyRecord, p policy.Policy) bool {
	needs := policy.ApprovalNeeded(rec.Method, rec.Class, rec.Policy, p)
	return rec.Policy.Exposed && p.Exposed && len(needs) == 1 && needs[0] == policy.ExposeRisky &&
		onlyScopeDiffers(rec.Policy, p) && policy.Explicit(rec.Method, rec.Policy, p) == nil
}

// scopeRequestForm is the confirmation page of a scope change that needs
// an approver: the diff (old and new expressions), a reason, the tool's
// name; the proposal rides along in hidden fields.
func (s *Server) scopeRequestForm(c echo.Context, rec *store.PolicyRecord, p policy.Policy, form views.PolicyFormVM) error {
	m := actionView(rec, "scope")
	m.Page, m.ReturnTo = s.page(c, m.Heading), policyReturn(c, rec)
	m.Diff = diffRows(rec.Policy, scoped(rec.Policy, p))
	m.Groups, m.Conditions, m.PerCall = form.Groups, form.Conditions, p.PerCall
	return render(c, http.StatusOK, views.ExplicitActionPage(m))
}

// scoped is cur with the groups, conditions and per-call mode of p.
func scoped(cur, p policy.Policy) policy.Policy {
	q := clonePolicy(cur)
	q.Groups, q.Conditions, q.PerCall = slices.Clone(p.Groups), slices.Clone(p.Conditions), p.PerCall
	return q
}

// scopeProposal fills n with the scope change the confirmation page
// carries, checked again (the hidden fields are the person's input too),
// and keeps it in m for a re-render.
func (s *Server) scopeProposal(c echo.Context, rec *store.PolicyRecord, m *views.ExplicitActionView, n *store.NewChangeRequest) error {
	var p policy.Policy
	p.Groups, p.Conditions = readScope(c)
	p.PerCall = c.FormValue("per_call")
	m.Groups, m.Conditions = scopeForm(p)
	m.PerCall = p.PerCall
	n.Policy = scoped(rec.Policy, p)
	m.Diff = diffRows(rec.Policy, n.Policy)
	problems, _, err := s.conditionProblems(c.Request().Context(), rec.ToolName, p.Conditions)
	if err != nil {
		return err
	}
	for field, msg := range problems {
		return apperr.Invalidf("%s: %s Nothing was requested; correct it in the policy editor.", field, msg)
	}
	return nil
}
