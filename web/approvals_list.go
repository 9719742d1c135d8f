package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

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
	ctx := c.Request().Context()
	me := currentUser(c)
	now := s.deps.Store.Now()
	m := views.ApprovalsView{Page: s.page(c, "Approvals"), Notice: approvalNotices[c.QueryParam("done")]}
	for _, f := range []struct {
		filter store.ChangeRequestFilter
		into   *[]views.ChangeRequestVM
	}{
		{store.ChangeRequestFilter{Pending: true}, &m.Pending},
		{store.ChangeRequestFilter{Decided: true, Limit: 100}, &m.History},
	} {
		list, err := s.deps.Store.ChangeRequests(ctx, f.filter)
		if err != nil {
			return err
		}
		for i := range list {
			vm, err := changeRequestVM(&list[i], me, now)
			if err != nil {
				return err
			}
			*f.into = append(*f.into, vm)
		}
	}
	return render(c, http.StatusOK, views.ApprovalsPage(m))
}
