package web

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/notify"
	"github.com/toolgate/toolgate/internal/store"
)

// notifyChangeRequest tells approvers of a change request just stored
// (Deps.Notifier; webhooks). It never fails the request.
func (s *Server) notifyChangeRequest(c echo.Context, cr *store.ChangeRequest) {
	id := strconv.FormatInt(cr.ID, 10)
	s.deps.Notifier.Notify(c.Request().Context(), notify.Event{Kind: notify.ChangeRequest, ID: id, Tool: cr.ToolName,
		RiskClass: cr.Class.String(), Summary: cr.Kind.Title(), Who: cr.RequesterEmail,
		URL: s.deps.Config.BaseURL + "/approvals#request-" + id, At: cr.RequestedAt})
}
