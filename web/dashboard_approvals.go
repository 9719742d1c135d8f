package web

import (
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/views"
)

// localApprovalWindow is how far back the dashboard looks for approvals
// one person could have given; localApprovalsShown is how many it lists.
const (
	localApprovalWindow = 30 * 24 * time.Hour
	localApprovalsShown = 5
	// localApprovalsRead bounds the rows read for the warning.
	localApprovalsRead = 500
)

// localApprovals lists the recent approvals one person could have given
// (approval.CouldBeOnePerson), at most localApprovalsShown, and how many
// more there are.
func (s *Server) localApprovals(c echo.Context, now time.Time) ([]views.LocalApprovalVM, int, error) {
	recent, err := s.deps.Store.RecentApprovals(c.Request().Context(), now.Add(-localApprovalWindow), localApprovalsRead)
	if err != nil {
		return nil, 0, err
	}
	var out []views.LocalApprovalVM
	more := 0
	for _, r := range recent {
		if !approval.CouldBeOnePerson(r.RequesterLocal, r.ApproverLocal) {
			continue
		}
		if len(out) == localApprovalsShown {
			more++
			continue
		}
		out = append(out, views.LocalApprovalVM{Tool: r.ToolName, Requester: r.Requester, Approver: r.Approver,
			At: consoleTime(r.DecidedAt)})
	}
	return out, more, nil
}
