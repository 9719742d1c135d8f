package web

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/views"
)

// toolsRaiseRisk raises a tool's class with a reason (admin). Problems
// re-render the tool page with the form's errors and the typed reason.
func (s *Server) toolsRaiseRisk(c echo.Context) error {
	name, reason := c.Param("name"), c.FormValue("reason")
	if _, err := s.deps.Store.ToolByName(c.Request().Context(), name); err != nil {
		return err
	}
	to, err := risk.ParseClass(c.FormValue("class"))
	field := "class"
	if err != nil {
		err = apperr.Invalidf("Choose a risk class.")
	} else {
		err = s.deps.Store.RaiseToolClass(c.Request().Context(), currentUser(c).Email, name, to, reason)
		// The store refuses a missing or overlong reason, or a class that
		// is not higher: put the message at the field it is about.
		if strings.TrimSpace(reason) == "" || strings.Contains(apperr.MessageOf(err), "reason") {
			field = "reason"
		}
	}
	if status, errs, ok := formProblem(err); ok {
		for i := range errs {
			errs[i].Field = field
		}
		return s.renderTool(c, status, views.RaiseRiskVM{Reason: reason, Errors: errs})
	}
	if err != nil {
		return err
	}
	return seeOther(c, "/tools/"+name+"?done=raised")
}
