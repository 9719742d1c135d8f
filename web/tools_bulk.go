package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// toolsBulkReview shows what a bulk action would change and what it skips
// and why, before anything is written (admin).
func (s *Server) toolsBulkReview(c echo.Context) error { return s.toolsBulk(c, false) }

// toolsBulkApply runs the confirmed bulk action, audited per tool (admin).
func (s *Server) toolsBulkApply(c echo.Context) error { return s.toolsBulk(c, true) }

func (s *Server) toolsBulk(c echo.Context, apply bool) error {
	params, err := c.FormParams()
	if err != nil {
		return apperr.Invalidf("The form could not be read.")
	}
	action := store.BulkAction(c.FormValue("action"))
	rep, err := s.deps.Store.BulkTools(c.Request().Context(), currentUser(c).Email, action, params["tool"], apply)
	if err != nil {
		return err
	}
	m := views.ToolsBulkView{Page: s.page(c, action.Title()), Action: string(rep.Action), ActionTitle: rep.Action.Title(),
		Applied: rep.Applied, Changed: bulkLines(rep.Changed), Unchanged: bulkLines(rep.Unchanged),
		Skipped: bulkLines(rep.Skipped), Back: "/tools"}
	return render(c, http.StatusOK, views.ToolsBulkPage(m))
}

func bulkLines(os []store.BulkOutcome) []views.BulkLineVM {
	out := make([]views.BulkLineVM, len(os))
	for i, o := range os {
		out[i] = views.BulkLineVM{Tool: o.Tool, Method: o.Method, Why: o.Why}
		if o.Class.Valid() {
			out[i].Class = o.Class.String()
		}
	}
	return out
}
