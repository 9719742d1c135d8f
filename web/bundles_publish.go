package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// bundlesPublish is POST /bundles (admin): sign the previewed state as the
// next version. A refusal (no origin, no key, note too long) re-renders the
// page with the message and the note typed.
func (s *Server) bundlesPublish(c echo.Context) error {
	note := c.FormValue("note")
	_, err := s.signAndStore(c, func(req store.PublishRequest) (*store.BundleRecord, error) {
		req.Note = note
		return s.deps.Store.Publish(c.Request().Context(), req)
	})
	if status, errs, ok := formProblem(err); ok {
		m, verr := s.bundlesView(c)
		if verr != nil {
			return verr
		}
		n, verr := s.nextBundleView(c, note)
		if verr != nil {
			return verr
		}
		m.Errors, m.Next = errs, &n
		return render(c, status, views.BundlesPage(m))
	}
	if err != nil {
		return err
	}
	s.kickPusher()
	return seeOther(c, "/bundles?done=published")
}

// signAndStore runs a publish with the active key, holding the key lock so
// a rotation cannot swap the key file halfway.
func (s *Server) signAndStore(c echo.Context, do func(store.PublishRequest) (*store.BundleRecord, error)) (*store.BundleRecord, error) {
	s.pub.keyMu.Lock()
	defer s.pub.keyMu.Unlock()
	key, err := s.pub.activeKey(c.Request().Context())
	if err != nil {
		return nil, err
	}
	return do(store.PublishRequest{Actor: currentUser(c).Email, Key: key})
}

// pathVersion reads :version; anything but a positive integer is not found.
func pathVersion(c echo.Context) (int64, error) {
	v, err := strconv.ParseInt(c.Param("version"), 10, 64)
	if err != nil || v <= 0 {
		return 0, apperr.NotFoundf("That bundle version was not found.")
	}
	return v, nil
}

// bundlesDownload is GET /bundles/:version/download: the signed JWS exactly
// as runtimes receive it, as a file.
func (s *Server) bundlesDownload(c echo.Context) error {
	v, err := pathVersion(c)
	if err != nil {
		return err
	}
	rec, err := s.deps.Store.BundleByVersion(c.Request().Context(), v)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Disposition", `attachment; filename="toolgate-bundle-v`+strconv.FormatInt(v, 10)+`.jws"`)
	h.Set("ETag", rec.ETag)
	return c.Blob(http.StatusOK, bundle.MediaTypeJOSE, []byte(rec.Signed))
}
