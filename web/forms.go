package web

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/policy"
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
	switch code := apperr.CodeOf(err); code {
	case apperr.Invalid, apperr.Conflict:
		return apperr.HTTPStatus(code), []views.FormError{{Message: apperr.MessageOf(err)}}, true
	}
	return 0, nil, false
}

// pathID reads the :id parameter naming what (e.g. "The user"); a
// malformed id is simply not found.
func pathID(c echo.Context, what string) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.NotFoundf("%s was not found.", what)
	}
	return id, nil
}

// fieldProblems collects one message per form field whose value does not
// parse, keyed by the field's name (the policy and defaults editors show
// them next to the fields).
type fieldProblems map[string]string

// wholeNumber parses v, the value of field.
func (p fieldProblems) wholeNumber(field, v string) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		p[field] = "Enter a whole number."
	}
	return n
}

// number parses v, the value of field, as a decimal number.
func (p fieldProblems) number(field, v string) float64 {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		p[field] = "Enter a number such as 2 or 1.5."
	}
	return n
}

// statuses reads the checked HTTP statuses of the checkbox group field
// (never nil: no box checked is an empty list).
func (p fieldProblems) statuses(c echo.Context, field string) []int {
	params, _ := c.FormParams()
	on := []int{}
	for _, s := range params[field] {
		n, err := strconv.Atoi(s)
		if err != nil {
			p[field] = "Unknown status."
			continue
		}
		on = append(on, n)
	}
	return on
}

// retryOnOrDefault is the status list an editor shows checked: nil stored
// means the R3 default set.
func retryOnOrDefault(stored []int) []int {
	if stored == nil {
		return policy.DefaultRetryOn()
	}
	return stored
}

// keepRetryOn returns stored when the checked statuses are the set stored
// already means, so an untouched form does not turn "default" (nil) into
// an explicit list that would show as a change.
func keepRetryOn(checked, stored []int) []int {
	if sameSet(checked, retryOnOrDefault(stored)) {
		return slices.Clone(stored)
	}
	return checked
}

func sameSet(a, b []int) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
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
