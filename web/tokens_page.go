package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/views"
)

// tokensPage is GET /tokens (admin): every runtime token with its last use.
func (s *Server) tokensPage(c echo.Context) error {
	m, err := s.tokensView(c)
	if err != nil {
		return err
	}
	if c.QueryParam("done") == "revoked" {
		m.Notice = "Token revoked: the next fetch with it gets 401."
	}
	return render(c, http.StatusOK, views.TokensPage(m))
}

func (s *Server) tokensView(c echo.Context) (views.TokensView, error) {
	m := views.TokensView{Page: s.page(c, "Runtime tokens")}
	tokens, err := s.deps.Store.ListRuntimeTokens(c.Request().Context())
	if err != nil {
		return m, err
	}
	for _, t := range tokens {
		row := views.TokenRow{Name: t.Name, CreatedAt: consoleTime(t.CreatedAt), CreatedBy: t.CreatedBy, LastUsed: "never"}
		if t.LastUsedAt != nil {
			row.LastUsed = consoleTime(*t.LastUsedAt)
		}
		if t.RevokedAt != nil {
			row.RevokedAt = consoleTime(*t.RevokedAt)
		}
		m.Tokens = append(m.Tokens, row)
	}
	return m, nil
}

// tokensCreate is POST /tokens (admin). The answer is the page itself with
// the token, not a redirect: it exists nowhere else and must be shown once.
// no-store keeps it out of the browser cache and history.
func (s *Server) tokensCreate(c echo.Context) error {
	name := c.FormValue("name")
	tok, secret, err := s.deps.Store.CreateRuntimeToken(c.Request().Context(), currentUser(c).Email, name)
	status, errs, problem := formProblem(err)
	if err != nil && !problem {
		return err
	}
	m, verr := s.tokensView(c)
	if verr != nil {
		return verr
	}
	if problem {
		// Every refusal here is about the name (empty, malformed, taken).
		for i := range errs {
			errs[i].Field = "name"
		}
		m.Errors, m.Name = errs, name
		return render(c, status, views.TokensPage(m))
	}
	m.NewToken, m.NewTokenName = secret, tok.Name
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, views.TokensPage(m))
}

// tokensRevoke is POST /tokens/:name/revoke (admin, confirmed).
func (s *Server) tokensRevoke(c echo.Context) error {
	name := c.Param("name")
	if c.FormValue("confirm") != "yes" {
		return apperr.Invalidf("Tick confirm to revoke the token %q.", name)
	}
	if _, err := s.deps.Store.RevokeRuntimeToken(c.Request().Context(), currentUser(c).Email, name); err != nil {
		return err
	}
	return seeOther(c, "/tokens?done=revoked")
}
