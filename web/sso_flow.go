package web

import (
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/sso"
)

// ssoFlowCookie carries one single sign-on in progress (state, nonce, PKCE
// verifier, where to go next) from /login/oidc to the callback, signed and
// encrypted with the session keys. It is scoped to the callback's path,
// lives at most sso.FlowLifetime, and is cleared by the first callback
// whatever its outcome, so every value is used once. SameSite=Lax lets the
// browser send it on the provider's top-level redirect back.
const ssoFlowCookie = "toolgate_oidc"

const ssoCallbackPath = "/login/oidc/callback"

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
	v, err := securecookie.EncodeMulti(ssoFlowCookie, f, s.flowCodecs()...)
	if err != nil {
		return fmt.Errorf("write sign-in cookie: %w", err)
	}
	c.SetCookie(s.flowCookie(v, int(sso.FlowLifetime.Seconds())))
	return nil
}

// takeFlowCookie returns the flow the browser holds (nil when none or
// unreadable) and tells the browser to drop it.
func (s *Server) takeFlowCookie(c echo.Context) *sso.Flow {
	ck, err := c.Cookie(ssoFlowCookie)
	if err != nil {
		return nil
	}
	c.SetCookie(s.flowCookie("", -1))
	var f sso.Flow
	if err := securecookie.DecodeMulti(ssoFlowCookie, ck.Value, &f, s.flowCodecs()...); err != nil {
		return nil
	}
	return &f
}

func (s *Server) flowCookie(value string, maxAge int) *http.Cookie {
	ck := &http.Cookie{Name: ssoFlowCookie, Value: value, Path: ssoCallbackPath, MaxAge: maxAge, HttpOnly: true,
		Secure: s.deps.Config.SecureCookies(), SameSite: http.SameSiteLaxMode}
	if maxAge > 0 {
		ck.Expires = time.Now().Add(time.Duration(maxAge) * time.Second)
	}
	return ck
}
