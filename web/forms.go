package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/views"
)

// newPassword reads a new password and its confirmation from the form
// fields name and name_confirm and checks the password policy.
func newPassword(c echo.Context, name string) (string, error) {
	pw := c.FormValue(name)
	if msg := auth.CheckPasswordPolicy(pw); msg != "" {
		return "", apperr.Invalidf("%s", msg)
	}
	if pw != c.FormValue(name+"_confirm") {
		return "", apperr.Invalidf("The two passwords differ.")
	}
	return pw, nil
}

// formRoles reads the role checkboxes.
func formRoles(c echo.Context) ([]auth.Role, error) {
	params, err := c.FormParams()
	if err != nil {
		return nil, apperr.Invalidf("The form could not be read.")
	}
	roles, err := auth.NormalizeRoles(params["role"])
	if err != nil {
		return nil, apperr.Invalidf("Unknown role.")
	}
	if len(roles) == 0 {
		return nil, apperr.Invalidf("Give the user at least one role.")
	}
	return roles, nil
}

// formProblem turns an invalid or conflict error into the status and
// message list to re-render a form with; ok is false for any other error,
// which the caller returns to the error handler.
func formProblem(err error) (status int, errs []views.FormError, ok bool) {
	switch apperr.CodeOf(err) {
	case apperr.Invalid:
		return http.StatusBadRequest, []views.FormError{{Message: apperr.MessageOf(err)}}, true
	case apperr.Conflict:
		return http.StatusConflict, []views.FormError{{Message: apperr.MessageOf(err)}}, true
	}
	return 0, nil, false
}

// pathID reads the :id parameter; a malformed id is simply not found.
func pathID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.NotFoundf("The user was not found.")
	}
	return id, nil
}

// safeNext keeps a post-sign-in redirect on this site: only absolute paths,
// never "//host" or a scheme.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.HasPrefix(next, "/\\") || u.Scheme != "" || u.Host != "" {
		return "/"
	}
	return next
}

// roleNames converts roles for views.
func roleNames(roles []auth.Role) []string {
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = string(r)
	}
	return out
}
