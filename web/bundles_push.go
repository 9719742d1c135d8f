package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// kickPusher tells the registry pusher (if any) that a bundle was stored:
// it pushes in the background, so the publish never waits for it.
func (s *Server) kickPusher() {
	if s.deps.Pusher != nil {
		s.deps.Pusher.Kick()
	}
}

// addPushStates fills each history row's registry push state when a
// registry is configured.
func (s *Server) addPushStates(c echo.Context, rows []views.BundleRow) error {
	if s.deps.Pusher == nil {
		return nil
	}
	pushes, err := s.deps.Store.BundlePushes(c.Request().Context(), s.deps.Pusher.Target())
	if err != nil {
		return err
	}
	admin := currentUser(c).Has(auth.RoleAdmin)
	for i := range rows {
		rows[i].Push = pushView(s.deps.Pusher.Target(), rows[i].Version, pushes, admin, csrfToken(c))
	}
	return nil
}

// pushView is one version's push state for the views; nil when the
// version was never queued (published before the registry was configured).
func pushView(target string, version int64, pushes map[int64]store.BundlePush, admin bool, csrf string) *views.PushView {
	p, ok := pushes[version]
	if !ok {
		return nil
	}
	v := &views.PushView{Version: version, Target: target, State: p.State, Error: p.LastError, Attempts: p.Attempts,
		CanRetry: admin && (p.State == store.PushFailed || p.State == store.PushPending), CSRF: csrf}
	if !p.PushedAt.IsZero() {
		v.PushedAt = consoleTime(p.PushedAt)
	}
	if p.State == store.PushFailed {
		v.NextAttempt = consoleTime(p.NextAttemptAt)
	}
	return v
}

// bundlesRetryPush is POST /bundles/:version/push (admin): make a failed
// or pending push due now and wake the pusher. With HTMX it answers the
// version's push state fragment; as a plain form, a redirect to the page.
func (s *Server) bundlesRetryPush(c echo.Context) error {
	v, err := pathVersion(c)
	if err != nil {
		return err
	}
	if s.deps.Pusher == nil {
		return apperr.NotFoundf("This console does not push bundles to a registry (start it with --publish-to-registry).")
	}
	ctx := c.Request().Context()
	if err := s.deps.Store.RetryPushNow(ctx, v, s.deps.Pusher.Target()); err != nil {
		return err
	}
	s.deps.Logger.Info("registry push retry requested", "version", v, "target", s.deps.Pusher.Target(),
		"actor", currentUser(c).Email)
	s.deps.Pusher.Kick()
	if c.Request().Header.Get("HX-Request") != "true" {
		return seeOther(c, "/bundles?done=retrying")
	}
	pushes, err := s.deps.Store.BundlePushes(ctx, s.deps.Pusher.Target())
	if err != nil {
		return err
	}
	p := pushView(s.deps.Pusher.Target(), v, pushes, true, csrfToken(c))
	return render(c, http.StatusOK, views.PushStatus(p))
}
