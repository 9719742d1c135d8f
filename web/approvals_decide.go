package web

import (
	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/store"
)

func requestID(c echo.Context) (int64, error) { return pathID(c, "The change request") }

// approvalsApprove approves a request (approver role by route; the store
// refuses self-approval and non-approvers again, whatever the UI showed).
func (s *Server) approvalsApprove(c echo.Context) error {
	id, err := requestID(c)
	if err != nil {
		return err
	}
	cr, err := s.deps.Store.ApproveChangeRequest(c.Request().Context(), currentUser(c).ID, id, c.FormValue("comment"))
	if err != nil {
		return err
	}
	if cr.Status == store.StatusVoid {
		return seeOther(c, "/approvals?done=void")
	}
	return seeOther(c, "/approvals?done=approved")
}

// approvalsReject rejects a request with a required comment.
func (s *Server) approvalsReject(c echo.Context) error {
	id, err := requestID(c)
	if err != nil {
		return err
	}
	if _, err := s.deps.Store.RejectChangeRequest(c.Request().Context(), currentUser(c).ID, id, c.FormValue("comment")); err != nil {
		return err
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
