package web

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/sso"
)

// ssoFlowCookie names the cookies that carry single sign-ons in progress
// (state, nonce, PKCE verifier, where to go next) from /login/oidc to the
// callback, signed and encrypted with the session keys: one cookie per
// sign-in, named after its state (flowCookieName), so two tabs signing in
// at once do not overwrite each other's. Each is scoped to the callback's
// path, lives at most sso.FlowLifetime, and is cleared by the callback
// that uses it whatever its outcome, so every value is used once.
// SameSite=Lax lets the browser send it on the provider's top-level
// redirect back.
const ssoFlowCookie = "toolgate_oidc"

const ssoCallbackPath = "/login/oidc/callback"

// flowCookieName is the cookie of the sign-in whose state is state.
func flowCookieName(state string) string {
	sum := sha256.Sum256([]byte(state))
	return ssoFlowCookie + "_" + hex.EncodeToString(sum[:8])
}

func (s *Server) flowCodecs() []securecookie.Codec {
	codecs := securecookie.CodecsFromPairs(s.deps.SessionKeys...)
	for _, c := range codecs {
		if sc, ok := c.(*securecookie.SecureCookie); ok {
			sc.MaxAge(int(sso.FlowLifetime.Seconds()))
			sc.SetSerializer(securecookie.JSONEncoder{})
		}
	}
	return codecs
}

func (s *Server) writeFlowCookie(c echo.Context, f sso.Flow) error {
	name := flowCookieName(f.State)
	v, err := securecookie.EncodeMulti(name, f, s.flowCodecs()...)
	if err != nil {
		return fmt.Errorf("write sign-in cookie: %w", err)
	}
	c.SetCookie(s.flowCookie(name, v, int(sso.FlowLifetime.Seconds())))
	return nil
}

// takeFlowCookie returns the sign-in the callback's state names (nil when
// the browser holds no sign-in at all) and tells the browser to drop that
// cookie. When the browser holds other sign-ins but not this one, it
// returns one of them, left in place for its own tab, so that sso.Finish
// refuses the callback as a state mismatch (an answer meant for another
// browser) rather than as a missing sign-in.
func (s *Server) takeFlowCookie(c echo.Context) *sso.Flow {
	name := flowCookieName(c.QueryParam("state"))
	if ck, err := c.Cookie(name); err == nil {
		c.SetCookie(s.flowCookie(name, "", -1))
		if f := s.decodeFlow(ck); f != nil {
			return f
		}
	}
	for _, ck := range c.Cookies() {
		if strings.HasPrefix(ck.Name, ssoFlowCookie+"_") {
			if f := s.decodeFlow(ck); f != nil {
				return f
			}
		}
	}
	return nil
}

// decodeFlow reads the sign-in in ck; nil when unreadable or expired.
func (s *Server) decodeFlow(ck *http.Cookie) *sso.Flow {
	var f sso.Flow
	if err := securecookie.DecodeMulti(ck.Name, ck.Value, &f, s.flowCodecs()...); err != nil {
		return nil
	}
	return &f
}

func (s *Server) flowCookie(name, value string, maxAge int) *http.Cookie {
	ck := &http.Cookie{Name: name, Value: value, Path: ssoCallbackPath, MaxAge: maxAge, HttpOnly: true,
		Secure: s.deps.Config.SecureCookies(), SameSite: http.SameSiteLaxMode}
	if maxAge > 0 {
		ck.Expires = time.Now().Add(time.Duration(maxAge) * time.Second)
	}
	return ck
}
