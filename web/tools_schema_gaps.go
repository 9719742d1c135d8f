package web

import (
	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// toolsAcknowledgeSchemaGaps records that the admin has seen that the
// tool's input schema is incomplete, which allows exposing it (admin).
func (s *Server) toolsAcknowledgeSchemaGaps(c echo.Context) error {
	name := c.Param("name")
	if err := s.deps.Store.AcknowledgeSchemaGaps(c.Request().Context(), currentUser(c).Email, name); err != nil {
		return err
	}
	return seeOther(c, "/tools/"+name+"?done=acknowledged")
}

// schemaGapsVM fills the incomplete-schema flag of a tool page.
func (s *Server) schemaGapsVM(c echo.Context, t *store.Tool, m *views.ToolDetailView) error {
	if len(t.Operation.SchemaGaps) == 0 {
		return nil
	}
	ackBy, err := s.deps.Store.SchemaGapsAckBy(c.Request().Context(), t.Name)
	if err != nil {
		return err
	}
	m.Gaps = views.SchemaGapsVM{Gaps: t.Operation.SchemaGaps, AckBy: ackBy}
	if currentUser(c).Has(auth.RoleAdmin) && t.RemovedAt == nil {
		m.Gaps.FormURL = "/tools/" + t.Name + "/schema-gaps/acknowledge"
	}
	if c.QueryParam("done") == "acknowledged" {
		m.Notice = "Incomplete input schema acknowledged."
	}
	return nil
}
