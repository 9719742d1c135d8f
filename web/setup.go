package web

import (
	"crypto/subtle"
	"fmt"
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

// errSetupLink answers a setup link this console does not know while no
// user exists yet: each console makes its own link at start, and a restart
// makes a new one.
var errSetupLink = apperr.NotFoundf("This setup link is not valid here. Each console prints its own link when it starts " +
	"with no users, and a restart prints a new one: open the newest link printed by the console you are using.")

// setupDone reports whether an account exists, forgetting this console's
// setup token when one does. With several consoles on one database each
// printed its own link at start; the first one used creates the admin, and
// the others learn it here, at their next setup request.
func (s *Server) setupDone(c echo.Context) (bool, error) {
	if s.setup.get() == "" {
		return true, nil // done through this console, or users existed at start
	}
	n, err := s.deps.Store.CountUsers(c.Request().Context())
	if err != nil {
		return false, fmt.Errorf("setup: %w", err)
	}
	if n > 0 {
		s.setup.clear()
	}
	return n > 0, nil
}

// renderSetupDone says that setup is done and where to sign in.
func (s *Server) renderSetupDone(c echo.Context, status int) error {
	return render(c, status, views.SetupDonePage(s.page(c, "Setup is already done")))
}

func (s *Server) setupForm(c echo.Context) error {
	done, err := s.setupDone(c)
	if err != nil {
		return err
	}
	if done {
		return s.renderSetupDone(c, http.StatusOK)
	}
	tok := c.QueryParam("token")
	if !s.setup.valid(tok) {
		return errSetupLink
	}
	return render(c, http.StatusOK, views.SetupPage(views.SetupView{Page: s.page(c, "Setup"), Token: tok}))
}

func (s *Server) setupSubmit(c echo.Context) error {
	done, err := s.setupDone(c)
	if err != nil {
		return err
	}
	if done {
		return s.renderSetupDone(c, http.StatusConflict)
	}
	tok := c.FormValue("token")
	if !s.setup.valid(tok) {
		return errSetupLink
	}
	email := c.FormValue("email")
	u, err := s.createFirstAdmin(c, email)
	if apperr.CodeOf(err) == apperr.Conflict {
		return s.renderSetupDone(c, http.StatusConflict) // another console won the race
	}
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
