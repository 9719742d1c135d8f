package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// approvalNotices are the confirmations a redirect may ask for.
var approvalNotices = map[string]string{
	"approved":  "Approved and applied.",
	"rejected":  "Rejected.",
	"withdrawn": "Request withdrawn.",
	"void":      "Not applied: the tool changed after the request was made, so the request is void. See the reason below.",
}

// approvalsList shows the pending queue and the decided history (viewer+
// reads; only approvers get approve/reject, never on their own requests).
func (s *Server) approvalsList(c echo.Context) error {
	m, err := s.approvalsView(c)
	if err != nil {
		return err
	}
	m.Notice = approvalNotices[c.QueryParam("done")]
	return render(c, http.StatusOK, views.ApprovalsPage(m))
}

// approvalsView reads the pending queue, marking requests that no longer
// match their tool, and the decided history.
func (s *Server) approvalsView(c echo.Context) (views.ApprovalsView, error) {
	ctx := c.Request().Context()
	me := currentUser(c)
	now := s.deps.Store.Now()
	m := views.ApprovalsView{Page: s.page(c, "Approvals")}
	pending, err := s.deps.Store.ChangeRequests(ctx, store.ChangeRequestFilter{Pending: true})
	if err != nil {
		return m, err
	}
	stale, err := s.deps.Store.StaleReasons(ctx, pending)
	if err != nil {
		return m, err
	}
	notIndependent := map[int64]string{}
	if me.Has(auth.RoleApprover) {
		if notIndependent, err = s.deps.Store.NotIndependent(ctx, me.ID, pending); err != nil {
			return m, err
		}
	}
	if m.Calls, err = s.callsSection(c); err != nil {
		return m, err
	}
	decided, err := s.deps.Store.ChangeRequests(ctx, store.ChangeRequestFilter{Decided: true, Limit: 100})
	if err != nil {
		return m, err
	}
	for _, f := range []struct {
		list []store.ChangeRequest
		into *[]views.ChangeRequestVM
	}{{pending, &m.Pending}, {decided, &m.History}} {
		for i := range f.list {
			vm, err := changeRequestVM(&f.list[i], me, now)
			if err != nil {
				return m, err
			}
			vm.Stale, vm.NotIndependent = stale[vm.ID], notIndependent[vm.ID]
			if f.into == &m.Pending {
				if vm.Outcomes, err = s.retryEvidence(ctx, &f.list[i]); err != nil {
					return m, err
				}
			}
			*f.into = append(*f.into, vm)
		}
	}
	return m, nil
}

// approvalsRefused shows the Approvals page again with a refused decision
// at the request's form (or at the top when the request is no longer
// pending), keeping what the approver typed.
func (s *Server) approvalsRefused(c echo.Context, id int64, refusal error) error {
	status, errs, ok := refusalProblem(refusal)
	if !ok {
		return refusal
	}
	m, err := s.approvalsView(c)
	if err != nil {
		return err
	}
	shown := false
	for i := range m.Pending {
		if r := &m.Pending[i]; r.ID == id && r.CanDecide {
			if r.NotIndependent != errs[0].Message { // else the page says it already
				r.Error, r.Comment = errs[0].Message, c.FormValue("comment")
			}
			shown = true
		}
	}
	if !shown {
		m.Errors = errs
	}
	return render(c, status, views.ApprovalsPage(m))
}

// refusalProblem is formProblem for forms whose action the store may refuse
// for who the person is (R10: approver powers, approver independence): the
// Forbidden message is shown on the form too, with its 403.
func refusalProblem(err error) (int, []views.FormError, bool) {
	if status, errs, ok := formProblem(err); ok {
		return status, errs, ok
	}
	if apperr.CodeOf(err) == apperr.Forbidden {
		return apperr.HTTPStatus(apperr.Forbidden), []views.FormError{{Message: apperr.MessageOf(err)}}, true
	}
	return 0, nil, false
}
