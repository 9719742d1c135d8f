package web

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// explicitKinds maps the action's URL word to its change request kind.
var explicitKinds = map[string]store.ChangeKind{
	"expose":     store.KindExposeRisky,
	"retry":      store.KindEnableMutationRetry,
	"lower-risk": store.KindLowerRisk,
	// scope: widen a risky tool's groups or loosen its conditions (R15);
	// exposing it more widely is the exposure kind of R10.
	"scope": store.KindExposeRisky,
}

// toolActionForm is the confirmation page of an explicit action (admin).
// It is a page rather than a <dialog> so it works without JavaScript.
func (s *Server) toolActionForm(c echo.Context) error {
	rec, kind, err := s.actionTarget(c)
	if err != nil {
		return err
	}
	if c.Param("kind") == "scope" {
		return apperr.Invalidf("Change the groups and conditions in the policy editor: saving asks for approval when it needs one.")
	}
	m := actionView(rec, c.Param("kind"))
	m.Page, m.ReturnTo = s.page(c, m.Heading), policyReturn(c, rec)
	if kind == store.KindExposeRisky {
		m.Diff = diffRows(rec.Policy, exposed(rec.Policy))
	}
	return render(c, http.StatusOK, views.ExplicitActionPage(m))
}

// toolActionSubmit creates the change request; nothing changes until an
// approver other than the requester approves it.
func (s *Server) toolActionSubmit(c echo.Context) error {
	rec, kind, err := s.actionTarget(c)
	if err != nil {
		return err
	}
	m := actionView(rec, c.Param("kind"))
	m.ReturnTo = policyReturn(c, rec)
	m.Reason, m.Mode, m.Attempts = c.FormValue("reason"), c.FormValue("mode"), c.FormValue("attempts")
	m.Header, m.Source, m.Argument, m.NewClass = c.FormValue("header"), c.FormValue("source"), c.FormValue("argument"), c.FormValue("new_class")
	m.Retry500, m.Retry501 = c.FormValue("retry_500") != "", c.FormValue("retry_501") != ""
	n := store.NewChangeRequest{ToolID: rec.ToolID, Kind: kind, Reason: m.Reason}
	err = confirmName(c, rec)
	switch {
	case err == nil && m.Kind == "scope":
		err = s.scopeProposal(c, rec, &m, &n)
	case err == nil:
		err = proposalFromForm(rec, m, &n)
	}
	if err == nil {
		var cr *store.ChangeRequest
		if cr, err = s.deps.Store.CreateChangeRequest(c.Request().Context(), currentUser(c), n); err == nil {
			s.notifyChangeRequest(c, cr)
		}
	}
	if status, errs, ok := formProblem(err); ok {
		var dup *store.DuplicateRequestError
		if errors.As(err, &dup) {
			errs[0].Link, errs[0].LinkText = "/approvals#request-"+strconv.FormatInt(dup.ID, 10), "See the pending request"
		}
		m.Page, m.Errors = s.page(c, m.Heading), errs
		if kind == store.KindExposeRisky && m.Kind != "scope" {
			m.Diff = diffRows(rec.Policy, exposed(rec.Policy))
		}
		return render(c, status, views.ExplicitActionPage(m))
	}
	if err != nil {
		return err
	}
	return seeOther(c, withDone(m.ReturnTo, "requested"))
}

func (s *Server) actionTarget(c echo.Context) (*store.PolicyRecord, store.ChangeKind, error) {
	kind, ok := explicitKinds[c.Param("kind")]
	if !ok {
		return nil, "", apperr.NotFoundf("There is no such action.")
	}
	rec, err := s.deps.Store.ToolPolicyByName(c.Request().Context(), c.Param("name"))
	return rec, kind, err
}

// confirmName checks that the person typed the tool's name: an explicit act
// must not be one stray click.
func confirmName(c echo.Context, rec *store.PolicyRecord) error {
	if strings.TrimSpace(c.FormValue("confirm_name")) != rec.ToolName {
		return apperr.Invalidf("Type the tool's name, %s, exactly to confirm.", rec.ToolName)
	}
	return nil
}

// proposalFromForm fills n's proposed policy or class from the form.
func proposalFromForm(rec *store.PolicyRecord, m views.ExplicitActionView, n *store.NewChangeRequest) error {
	switch n.Kind {
	case store.KindExposeRisky:
		n.Policy = exposed(rec.Policy)
	case store.KindLowerRisk:
		c, err := risk.ParseClass(m.NewClass)
		if err != nil {
			return apperr.Invalidf("Choose the new risk class.")
		}
		n.NewClass = c
	case store.KindEnableMutationRetry:
		attempts, err := strconv.Atoi(strings.TrimSpace(m.Attempts))
		if err != nil || attempts < 2 || attempts > policy.MaxAttempts {
			return apperr.Invalidf("Attempts must be a whole number from 2 to %d.", policy.MaxAttempts)
		}
		p := clonePolicy(rec.Policy)
		p.Retry.Attempts = attempts
		p.Retry.RetryOn = withStatus(p.Retry.RetryOn, 500, m.Retry500)
		p.Retry.RetryOn = withStatus(p.Retry.RetryOn, 501, m.Retry501)
		if m.Mode == "assert" {
			p.Idempotent = true
		} else {
			p.IdempotencyKey = &policy.IdempotencyKey{Header: strings.TrimSpace(m.Header), Source: m.Source}
			if m.Source == policy.KeyArgument {
				p.IdempotencyKey.Argument = strings.TrimSpace(m.Argument)
			}
		}
		n.Policy = p
	}
	return nil
}

// actionView is the confirmation page's fixed text for each action.
func actionView(rec *store.PolicyRecord, word string) views.ExplicitActionView {
	m := views.ExplicitActionView{ToolName: rec.ToolName, Method: rec.Method, Class: rec.Class.String(), Kind: word,
		Mode: "key", Attempts: "3", Header: policy.DefaultKeyHeader, Source: policy.KeyGenerated, Argument: policy.DefaultKeyArgument}
	switch word {
	case "expose":
		m.Heading = "Expose " + rec.ToolName
		m.Warning = "Agents will be able to call this " + rec.Class.String() + " tool once a security approver approves. " +
			"Say why an agent needs it."
	case "retry":
		m.Heading = "Enable retry on " + rec.ToolName
		m.Warning = "Sending an idempotency key does not make an API idempotent: only retry if the API deduplicates " +
			"requests by that key, or if you know repeating this " + rec.Method + " has no further effect."
	case "scope":
		m.Heading = "Widen the groups or loosen the conditions of " + rec.ToolName
		m.Warning = "More callers, or calls with fewer argument limits, will reach this " + rec.Class.String() +
			" tool once a security approver approves. Say why."
	case "lower-risk":
		m.Heading = "Lower the risk class of " + rec.ToolName
		m.Warning = "A lower class lets this tool be exposed and retried under fewer checks. Explain why the detected class overstates the risk."
		for _, c := range risk.Classes {
			if c < rec.Class {
				m.Classes = append(m.Classes, c.String())
			}
		}
		if len(m.Classes) > 0 {
			m.NewClass = m.Classes[len(m.Classes)-1]
		}
	}
	return m
}

func exposed(p policy.Policy) policy.Policy {
	q := clonePolicy(p)
	q.Exposed = true
	return q
}

// clonePolicy copies p so a proposal never shares the key or retry list
// with the stored record.
func clonePolicy(p policy.Policy) policy.Policy {
	if p.IdempotencyKey != nil {
		k := *p.IdempotencyKey
		p.IdempotencyKey = &k
	}
	if p.Retry.RetryOn != nil {
		p.Retry.RetryOn = append([]int{}, p.Retry.RetryOn...)
	}
	return p
}

// diffRows lists what differs from before to after, for a diff table.
func diffRows(before, after policy.Policy) []views.DiffRowVM {
	return diffRowVMs(policy.Diff(before, after))
}

func diffRowVMs(changes []policy.FieldChange) []views.DiffRowVM {
	var out []views.DiffRowVM
	for _, d := range changes {
		out = append(out, views.DiffRowVM{Field: d.Field, Before: d.Before, After: d.After})
	}
	return out
}

// withStatus adds status to a retry_on list when want is set (keeping a nil
// list's meaning: nil is the R3 default set, so it is spelled out first).
func withStatus(list []int, status int, want bool) []int {
	if !want || slices.Contains(list, status) {
		return list
	}
	if list == nil {
		list = policy.DefaultRetryOn()
	}
	return append(list, status)
}
