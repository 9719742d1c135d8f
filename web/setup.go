package web

import (
	"crypto/subtle"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// setupToken is the secret of the one-time first-run link. It lives only in
// memory: a restart before setup prints a new link, and once the first admin
// exists there is no token at all.
type setupToken struct {
	mu    sync.Mutex
	token string
}

func (t *setupToken) create() error {
	tok, err := randomToken()
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.token = tok
	return nil
}

func (t *setupToken) get() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.token
}

func (t *setupToken) valid(tok string) bool {
	cur := t.get()
	return cur != "" && subtle.ConstantTimeCompare([]byte(cur), []byte(tok)) == 1
}

func (t *setupToken) clear() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.token = ""
}

var errSetupLink = apperr.NotFoundf("This setup link is not valid: setup is done, or the console was restarted and printed a new link.")

func (s *Server) setupForm(c echo.Context) error {
	tok := c.QueryParam("token")
	if !s.setup.valid(tok) {
		return errSetupLink
	}
	return render(c, http.StatusOK, views.SetupPage(views.SetupView{Page: s.page(c, "Setup"), Token: tok}))
}

func (s *Server) setupSubmit(c echo.Context) error {
	tok := c.FormValue("token")
	if !s.setup.valid(tok) {
		return errSetupLink
	}
	email := c.FormValue("email")
	u, err := s.createFirstAdmin(c, email)
	if status, errs, ok := formProblem(err); ok {
		m := views.SetupView{Page: s.page(c, "Setup"), Token: tok, Email: email, Errors: errs}
		return render(c, status, views.SetupPage(m))
	}
	if err != nil {
		return err
	}
	s.setup.clear()
	s.deps.Logger.Info("setup done: first admin created", "email", u.Email)
	return s.startSession(c, u, "/")
}

func (s *Server) createFirstAdmin(c echo.Context, email string) (*store.User, error) {
	pw, err := newPassword(c, "password")
	if err != nil {
		return nil, err
	}
	hash, err := auth.HashPassword(pw)
	if err != nil {
		return nil, err
	}
	u, err := s.deps.Store.CreateFirstAdmin(c.Request().Context(), email, hash)
	if apperr.CodeOf(err) == apperr.Conflict {
		s.setup.clear()
	}
	return u, err
}
