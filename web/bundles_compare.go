package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/views"
)

// bundlesCompare is GET /bundles/compare?from=N&to=M: what changed from one
// published version to another (either order).
func (s *Server) bundlesCompare(c echo.Context) error {
	from, err1 := strconv.ParseInt(c.QueryParam("from"), 10, 64)
	to, err2 := strconv.ParseInt(c.QueryParam("to"), 10, 64)
	if err1 != nil || err2 != nil || from <= 0 || to <= 0 {
		return apperr.Invalidf("Choose two versions to compare.")
	}
	ctx := c.Request().Context()
	var bs [2]*bundle.Bundle
	for i, v := range []int64{from, to} {
		rec, err := s.deps.Store.BundleByVersion(ctx, v)
		if err != nil {
			return err
		}
		if bs[i], err = rec.Bundle(); err != nil {
			return err
		}
	}
	m := views.CompareView{Page: s.page(c, "Compare bundles"), From: from, To: to, Changes: changesView(bundle.Diff(bs[0], bs[1]))}
	return render(c, http.StatusOK, views.ComparePage(m))
}
