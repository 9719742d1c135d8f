package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// bundlesRollbackConfirm is GET /bundles/:version/rollback (admin): what
// republishing the version would sign now, the tools the gate leaves out
// and why (R14), and the confirmation form.
func (s *Server) bundlesRollbackConfirm(c echo.Context) error {
	v, err := pathVersion(c)
	if err != nil {
		return err
	}
	p, err := s.deps.Store.PreviewRollback(c.Request().Context(), v)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.RollbackPage(views.RollbackView{Page: s.page(c, "Republish v"+c.Param("version")),
		From: v, Next: p.Next.Version, ToolCount: len(p.Next.Tools), Changes: changesView(p.Changes),
		Withheld: withheldRows(p.Withheld)}))
}

// bundlesRollback is POST /bundles/:version/rollback (admin, confirmed):
// the version's content, through the gate, becomes the next version.
func (s *Server) bundlesRollback(c echo.Context) error {
	v, err := pathVersion(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "yes" {
		return apperr.Invalidf("Tick confirm to republish v%d.", v)
	}
	_, err = s.signAndStore(c, func(req store.PublishRequest) (*store.BundleRecord, error) {
		return s.deps.Store.Rollback(c.Request().Context(), req, v)
	})
	if err != nil {
		return err
	}
	s.kickPusher()
	return seeOther(c, "/bundles?done=rolledback")
}
