package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/views"
)

var keysNotices = map[string]string{
	"rotated": "New key active. Publish to sign a bundle with it; the old key stays published until you retire it.",
	"retired": "Key retired: it is no longer published and its private half is deleted.",
}

// keysPage is GET /keys: every signing key with its state.
func (s *Server) keysPage(c echo.Context) error {
	m := views.KeysView{Page: s.page(c, "Signing keys"), CanManage: currentUser(c).Has(auth.RoleAdmin),
		Notice: keysNotices[c.QueryParam("done")]}
	if s.pub.keys == nil {
		m.Errors = []views.FormError{{Message: apperr.MessageOf(errNoKeys)}}
		return render(c, http.StatusOK, views.KeysPage(m))
	}
	active, keys, err := s.pub.keys.List(c.Request().Context())
	if err != nil {
		return err
	}
	signing := ""
	if cur, err := s.deps.Store.LatestBundleSummary(c.Request().Context()); err == nil {
		signing = cur.KeyID
	} else if apperr.CodeOf(err) != apperr.NotFound {
		return err
	}
	for i := len(keys) - 1; i >= 0; i-- { // newest first
		k := keys[i]
		row := views.KeyRow{KeyID: k.KeyID, CreatedAt: consoleTime(k.CreatedAt), Active: k.KeyID == active, SignsCurrent: k.KeyID == signing}
		if k.RetiredAt != nil {
			row.RetiredAt = consoleTime(*k.RetiredAt)
		}
		m.Keys = append(m.Keys, row)
	}
	return render(c, http.StatusOK, views.KeysPage(m))
}

// keysRotate is POST /keys/rotate (admin, confirmed), audited key.rotate.
func (s *Server) keysRotate(c echo.Context) error {
	if c.FormValue("confirm") != "yes" {
		return apperr.Invalidf("Tick the box to confirm the rotation.")
	}
	s.pub.keyMu.Lock()
	defer s.pub.keyMu.Unlock()
	if s.pub.keys == nil {
		return errNoKeys
	}
	if _, err := s.pub.keys.Rotate(c.Request().Context(), currentUser(c).Email); err != nil {
		return err
	}
	return seeOther(c, "/keys?done=rotated")
}

// keysRetire is POST /keys/:kid/retire (admin, confirmed), audited
// key.retire. The key that signed the current bundle cannot be retired:
// runtimes fetching it would find no key to verify it with.
func (s *Server) keysRetire(c echo.Context) error {
	if c.FormValue("confirm") != "yes" {
		return apperr.Invalidf("Tick the box to confirm retiring the key.")
	}
	kid := c.Param("kid")
	s.pub.keyMu.Lock()
	defer s.pub.keyMu.Unlock()
	if s.pub.keys == nil {
		return errNoKeys
	}
	if err := s.pub.keys.Retire(c.Request().Context(), currentUser(c).Email, kid); err != nil {
		return err
	}
	return seeOther(c, "/keys?done=retired")
}
