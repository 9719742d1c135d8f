package web

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// toolPolicyPanel builds the policy box of tool toolID for the current GET
// request. The tool page (web/tools_*) renders it with
// views.ToolPolicyPanel; its forms come back to the page's own path.
func (s *Server) toolPolicyPanel(c echo.Context, toolID int64) (views.ToolPolicyPanelVM, error) {
	rec, err := s.deps.Store.ToolPolicy(c.Request().Context(), toolID)
	if err != nil {
		return views.ToolPolicyPanelVM{}, err
	}
	return s.panelFor(c, rec, c.Request().URL.Path)
}

// panelFor builds the panel of rec showing its stored values.
func (s *Server) panelFor(c echo.Context, rec *store.PolicyRecord, returnTo string) (views.ToolPolicyPanelVM, error) {
	ctx := c.Request().Context()
	me := currentUser(c)
	m := views.ToolPolicyPanelVM{
		CSRF: csrfToken(c), ToolName: rec.ToolName, Method: rec.Method, Path: rec.Path,
		Class: rec.Class.String(), DetectedClass: rec.DetectedClass.String(), Reasons: reasonVMs(rec.Reasons),
		Suspended: rec.SuspendedReason, Summary: policy.Describe(rec.Method, policy.Effective(rec.Method, rec.Policy)),
		Version: rec.Version, Form: policyForm(rec.Policy), Preview: policyPreview(rec, rec.Policy, nil),
		CanEdit: me.Has(auth.RoleAdmin), ReturnTo: safeNext(returnTo), PerCall: rec.Policy.PerCall,
	}
	if m.CanEdit {
		m.Actions = explicitActions(rec, m.ReturnTo)
	}
	pending, err := s.deps.Store.ChangeRequests(ctx, store.ChangeRequestFilter{ToolID: rec.ToolID, Pending: true})
	if err != nil {
		return m, err
	}
	for i := range pending {
		vm, err := changeRequestVM(&pending[i], me, s.deps.Store.Now())
		if err != nil {
			return m, err
		}
		m.Pending = append(m.Pending, vm)
	}
	history, _, err := s.deps.Store.QueryAudit(ctx, store.AuditFilter{Subject: rec.Subject(), Limit: 10})
	if err != nil {
		return m, err
	}
	m.History = auditVMs(history)
	return m, nil
}

// policyPreview explains candidate as the runtime will enforce it, and says
// what in it (against the stored policy) needs an explicit action.
func policyPreview(rec *store.PolicyRecord, candidate policy.Policy, fieldErrs map[string]string) views.PolicyPreviewVM {
	var p views.PolicyPreviewVM
	for _, l := range policy.Explain(rec.Method, candidate) {
		if strings.HasPrefix(l, "Warning: ") {
			p.Warnings = append(p.Warnings, l)
			continue
		}
		p.Lines = append(p.Lines, l)
	}
	wc, _ := policy.WorstCase(rec.Method, candidate)
	p.WorstCase = formatDuration(wc)
	for _, a := range policy.ApprovalNeeded(rec.Method, rec.Class, rec.Policy, candidate) {
		p.NeedsApproval = append(p.NeedsApproval, a.Title())
	}
	if len(p.NeedsApproval) == 0 {
		for _, f := range policy.Explicit(rec.Method, rec.Policy, candidate) {
			p.NeedsApproval = append(p.NeedsApproval, "Changing "+f+" of a "+rec.Method+" tool (R2)")
		}
	}
	p.Invalid = invalidLines(fieldErrs, candidate.Validate())
	if len(p.Invalid) > 0 {
		// What Explain says is about the clamped values (9 attempts read as
		// 5): describing them beside the error would contradict the form.
		p.Lines, p.Warnings, p.WorstCase = nil, nil, ""
	}
	return p
}

// invalidLines lists "field: message" for the fields that could not be
// read or, when all could, for what validation refuses; sorted, since map
// order would reshuffle the preview on every keystroke.
func invalidLines(fieldErrs map[string]string, validation error) []string {
	fields := fieldErrs
	var ve *policy.ValidationError
	if len(fields) == 0 && errors.As(validation, &ve) {
		fields = ve.Fields
	}
	var out []string
	for field, msg := range fields {
		out = append(out, field+": "+msg)
	}
	slices.Sort(out)
	return out
}

// explicitActions lists the R10 actions that make sense for the tool now.
// Each link carries returnTo, so Cancel and the finished request lead back
// to the page the person came from.
func explicitActions(rec *store.PolicyRecord, returnTo string) []views.ExplicitActionVM {
	base := "/tools/" + rec.ToolName + "/actions/"
	back := "?return_to=" + url.QueryEscape(returnTo)
	var out []views.ExplicitActionVM
	if rec.Class >= risk.Destructive && !rec.Policy.Exposed {
		out = append(out, views.ExplicitActionVM{Label: "Expose this tool…", Href: base + "expose" + back,
			Hint: rec.Class.String() + " tools are exposed only after approval."})
	}
	if !policy.IsSafeMethod(rec.Method) {
		out = append(out, views.ExplicitActionVM{Label: "Enable retry…", Href: base + "retry" + back,
			Hint: "A " + rec.Method + " is retried only with an idempotency key or an idempotency assertion."})
	}
	if rec.Class > risk.Read {
		out = append(out, views.ExplicitActionVM{Label: "Lower the risk class…", Href: base + "lower-risk" + back,
			Hint: "When the detected class overstates the risk."})
	}
	return out
}

func reasonVMs(rs []risk.Reason) []views.RiskReasonVM {
	out := make([]views.RiskReasonVM, len(rs))
	for i, r := range rs {
		out[i] = views.RiskReasonVM{Code: r.Code, Class: r.Class.String(), Text: r.Text}
	}
	return out
}

func auditVMs(es []audit.Entry) []views.AuditEntryVM {
	out := make([]views.AuditEntryVM, len(es))
	for i, e := range es {
		out[i] = views.AuditEntryVM{ID: e.ID, At: e.At, Actor: e.Actor, Action: e.Action, Subject: e.Subject, Before: e.Before, After: e.After,
			Diff: auditDiff(e.Before, e.After)}
	}
	return out
}

// changeRequestVM renders a request for viewer me.
func changeRequestVM(cr *store.ChangeRequest, me *store.User, now time.Time) (views.ChangeRequestVM, error) {
	diff, err := cr.Diff()
	if err != nil {
		return views.ChangeRequestVM{}, fmt.Errorf("change request %d: %w", cr.ID, err)
	}
	vm := views.ChangeRequestVM{ID: cr.ID, ToolName: cr.ToolName, Class: cr.Class.String(), Reasons: reasonVMs(cr.Reasons),
		Kind: cr.Kind.Title(), Reason: cr.Reason, Requester: cr.RequesterEmail, Age: age(now.Sub(cr.RequestedAt)),
		Status: cr.Status, Decider: cr.DeciderEmail, Comment: cr.Comment, VoidReason: cr.VoidReason, Diff: diffRowVMs(diff),
		Digest: cr.DefinitionDigest}
	if !cr.DecidedAt.IsZero() {
		vm.DecidedAt = consoleTime(cr.DecidedAt)
	}
	pending := cr.Status == store.StatusPending
	vm.CanWithdraw = pending && cr.RequestedBy == me.ID
	vm.CanDecide = pending && cr.RequestedBy != me.ID && me.Has(auth.RoleApprover)
	return vm, nil
}

// age says how long ago something happened, roughly.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour")
	}
	return plural(int(d/(24*time.Hour)), "day")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// formatDuration renders a duration like the policy package's sentences:
// "300 ms" below a second, seconds with one decimal above.
func formatDuration(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	if ms < 1000 {
		return strconv.FormatFloat(math.Round(ms), 'f', -1, 64) + " ms"
	}
	return strconv.FormatFloat(math.Round(ms/100)/10, 'f', -1, 64) + " s"
}
