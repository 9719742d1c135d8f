package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

func requestID(c echo.Context) (int64, error) { return pathID(c, "The change request") }

// approvalsApprove approves a request in two steps, both plain POSTs: the
// Approve button asks for the confirmation page (approvalsConfirm), whose
// form comes back with confirm=yes and applies. The store refuses
// self-approval, non-approvers and approvers who are not independent of the
// requester again, whatever the pages showed.
func (s *Server) approvalsApprove(c echo.Context) error {
	id, err := requestID(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "yes" {
		return s.approvalsConfirm(c, id)
	}
	cr, err := s.deps.Store.ApproveChangeRequest(c.Request().Context(), currentUser(c).ID, id, c.FormValue("comment"))
	if err != nil {
		return s.approvalsRefused(c, id, err)
	}
	if cr.Status == store.StatusVoid {
		return seeOther(c, "/approvals?done=void")
	}
	return seeOther(c, "/approvals?done=approved")
}

// approvalsConfirm shows what approving request id would apply: the diff,
// whether the request still matches the tool, and for policy changes the
// effective policy with its worst case and warnings. An approver who may
// not decide it is told so on the Approvals page instead.
func (s *Server) approvalsConfirm(c echo.Context, id int64) error {
	ctx := c.Request().Context()
	me := currentUser(c)
	if err := s.deps.Store.CheckApprover(ctx, me.ID, id); err != nil {
		return s.approvalsRefused(c, id, err)
	}
	cr, err := s.deps.Store.ChangeRequest(ctx, id)
	if err != nil {
		return err
	}
	stale, err := s.deps.Store.StaleReasons(ctx, []store.ChangeRequest{*cr})
	if err != nil {
		return err
	}
	vm, err := changeRequestVM(cr, me, s.deps.Store.Now())
	if err != nil {
		return err
	}
	vm.Stale = stale[cr.ID]
	if vm.Outcomes, err = s.retryEvidence(ctx, cr); err != nil {
		return err
	}
	m := views.ApproveConfirmView{Page: s.page(c, "Approve "+cr.ToolName), Request: vm, Comment: c.FormValue("comment")}
	if cr.Kind != store.KindLowerRisk {
		before, after, err := cr.Policies()
		if err != nil {
			return err
		}
		worstNow, _ := policy.WorstCase(cr.Method, before)
		worstAfter, warnings := policy.WorstCase(cr.Method, after)
		m.WorstNow, m.WorstAfter, m.Warnings = formatDuration(worstNow), formatDuration(worstAfter), warnings
		for _, line := range policy.Explain(cr.Method, after) {
			if !strings.HasPrefix(line, "Warning: ") { // shown once, below, as warnings
				m.Effective = append(m.Effective, line)
			}
		}
	}
	return render(c, http.StatusOK, views.ApproveConfirmPage(m))
}

// approvalsReject rejects a request with a required comment; without one,
// the Approvals page comes back with the error at the comment field.
func (s *Server) approvalsReject(c echo.Context) error {
	id, err := requestID(c)
	if err != nil {
		return err
	}
	if _, err := s.deps.Store.RejectChangeRequest(c.Request().Context(), currentUser(c).ID, id, c.FormValue("comment")); err != nil {
		return s.approvalsRefused(c, id, err)
	}
	return seeOther(c, "/approvals?done=rejected")
}

// approvalsWithdraw withdraws the signed-in person's own pending request.
func (s *Server) approvalsWithdraw(c echo.Context) error {
	id, err := requestID(c)
	if err != nil {
		return err
	}
	if _, err := s.deps.Store.WithdrawChangeRequest(c.Request().Context(), currentUser(c).ID, id); err != nil {
		return err
	}
	to := "/approvals"
	if r := c.FormValue("return_to"); r != "" {
		to = safeNext(r)
	}
	return seeOther(c, withDone(to, "withdrawn"))
}
