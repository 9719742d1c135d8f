package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// policyNotices are the confirmations a redirect may ask for (?done=...).
var policyNotices = map[string]string{
	"saved":     "Policy saved.",
	"requested": "Change request created. Nothing changes until a security approver other than you approves it.",
	"withdrawn": "Request withdrawn.",
}

// toolPolicyPage shows one tool's policy panel on a page of its own
// (viewer+; the editor and actions only for admins).
func (s *Server) toolPolicyPage(c echo.Context) error {
	rec, err := s.deps.Store.ToolPolicyByName(c.Request().Context(), c.Param("name"))
	if err != nil {
		return err
	}
	panel, err := s.panelFor(c, rec, c.Request().URL.Path)
	if err != nil {
		return err
	}
	panel.Notice = policyNotices[c.QueryParam("done")]
	return s.renderPolicyPage(c, http.StatusOK, rec, panel)
}

// When the form came from the tool's own page (return_to), that page is
// rendered instead, with this panel.
func (s *Server) renderPolicyPage(c echo.Context, status int, rec *store.PolicyRecord, panel views.ToolPolicyPanelVM) error {
	if path, _, _ := strings.Cut(panel.ReturnTo, "?"); path == "/tools/"+rec.ToolName {
		return s.renderToolWith(c, status, views.RaiseRiskVM{}, &panel)
	}
	m := views.ToolPolicyPageView{Page: s.page(c, rec.ToolName+" policy"), Panel: panel, Summary: rec.Summary}
	return render(c, status, views.ToolPolicyPage(m))
}

// policyReturn is where a policy form goes back to: the page it was on
// (the tool page or the policy page), never another site.
func policyReturn(c echo.Context, rec *store.PolicyRecord) string {
	if to := c.FormValue("return_to"); to != "" {
		return safeNext(to)
	}
	return "/tools/" + rec.ToolName + "/policy"
}

// withDone appends ?done=key (or &done=key) to a local path.
func withDone(path, key string) string {
	if strings.Contains(path, "?") {
		return path + "&done=" + key
	}
	return path + "?done=" + key
}
