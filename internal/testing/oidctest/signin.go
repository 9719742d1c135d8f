package oidctest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
)

// hiddenID finds the auth request id in the login form.
var hiddenID = regexp.MustCompile(`name="id" value="([^"]*)"`)

// SignIn plays a person's browser at the provider with a Go client (its
// own cookie jar): it opens authURL, fills the login form with username and
// password, and follows the provider's redirects until one leaves the
// provider. It returns that URL (the relying party's callback with code
// and state, or with an error) without requesting it.
func (p *Provider) SignIn(authURL, username, password string) (*url.URL, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	var out *url.URL
	c := &http.Client{Jar: jar, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		if !strings.HasPrefix(r.URL.String(), p.Issuer+"/") {
			out = r.URL
			return http.ErrUseLastResponse
		}
		return nil
	}}
	resp, err := c.Get(authURL)
	if err != nil {
		return nil, fmt.Errorf("oidctest: authorize: %w", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if out != nil {
		return out, nil // the provider answered at once (an error redirect)
	}
	m := hiddenID.FindSubmatch(body)
	if m == nil {
		return nil, fmt.Errorf("oidctest: no login form (status %d): %.300s", resp.StatusCode, body)
	}
	resp, err = c.PostForm(p.Issuer+"/login", url.Values{"id": {string(m[1])}, "username": {username}, "password": {password}})
	if err != nil {
		return nil, fmt.Errorf("oidctest: login: %w", err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if out == nil {
		return nil, errors.New("oidctest: login did not redirect to the client: " + resp.Status + " " + string(body[:min(len(body), 300)]))
	}
	return out, nil
}
