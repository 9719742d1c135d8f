package web

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/store"
)

const (
	sessionCookie = "toolgate_session"
	sessionKeyID  = "sid"
	ctxUser       = "toolgate.user"
	ctxToken      = "toolgate.session_token"
)

// sessionKeysFile holds the cookie keys, so a restart keeps people signed in.
const sessionKeysFile = "session.keys"

// LoadSessionKeys reads the cookie signing and encryption keys from dataDir,
// creating them (mode 0600) on first use. The file is 64 bytes of HMAC key
// followed by 32 bytes of AES key.
func LoadSessionKeys(dataDir string) ([][]byte, error) {
	path := filepath.Join(dataDir, sessionKeysFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		b = make([]byte, 96)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("create session keys: %w", err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return nil, fmt.Errorf("create session keys: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("read session keys: %w", err)
	}
	if len(b) != 96 {
		return nil, fmt.Errorf("read session keys: %s has %d bytes, want 96 (delete it to sign everyone out and start over)", path, len(b))
	}
	return [][]byte{b[:64], b[64:]}, nil
}

// newCookieStore returns the gorilla store for the session cookie. The
// cookie carries only a random session id; the session itself is a row in
// the sessions table, so ending it there ends it everywhere.
func newCookieStore(keys [][]byte, cfg config.Config) *sessions.CookieStore {
	cs := sessions.NewCookieStore(keys...)
	cs.Options = &sessions.Options{
		Path:     "/",
		MaxAge:   int(cfg.SessionMaxAge.Seconds()),
		HttpOnly: true,
		Secure:   cfg.SecureCookies(),
		SameSite: http.SameSiteLaxMode,
	}
	cs.MaxAge(cs.Options.MaxAge)
	return cs
}

func (s *Server) sessionPolicy() store.SessionPolicy {
	return store.SessionPolicy{Idle: s.deps.Config.SessionIdle, Absolute: s.deps.Config.SessionMaxAge}
}

// writeSessionCookie puts token into a fresh session cookie.
func (s *Server) writeSessionCookie(c echo.Context, token string) error {
	sess := sessions.NewSession(s.cookies, sessionCookie)
	opts := *s.cookies.Options
	sess.Options = &opts
	sess.Values[sessionKeyID] = token
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return fmt.Errorf("write session cookie: %w", err)
	}
	return nil
}

// clearSessionCookie tells the browser to drop the session cookie.
func (s *Server) clearSessionCookie(c echo.Context) {
	opts := *s.cookies.Options
	opts.MaxAge = -1
	c.SetCookie(sessions.NewCookie(sessionCookie, "", &opts))
}

// loadSession resolves the session cookie to a user for every request. A
// bad, expired or ended session just means "anonymous" (and the cookie is
// cleared); routes decide whether that is allowed.
func (s *Server) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if _, err := c.Cookie(sessionCookie); err != nil {
			return next(c)
		}
		sess, err := s.cookies.Get(c.Request(), sessionCookie)
		token, _ := sess.Values[sessionKeyID].(string)
		if err != nil || token == "" {
			s.clearSessionCookie(c)
			return next(c)
		}
		u, _, err := s.deps.Store.SessionUser(c.Request().Context(), token, s.sessionPolicy())
		switch {
		case apperr.CodeOf(err) == apperr.Unauthorized:
			s.clearSessionCookie(c)
		case err != nil:
			return err
		default:
			c.Set(ctxUser, u)
			c.Set(ctxToken, token)
			// A signed-in page shows what its user may see: no cache (the
			// browser's back-forward one included) may keep it after
			// sign-out. Static files set their own caching over this.
			c.Response().Header().Set("Cache-Control", "no-store")
		}
		return next(c)
	}
}

// currentUser is the signed-in user, or nil.
func currentUser(c echo.Context) *store.User {
	u, _ := c.Get(ctxUser).(*store.User)
	return u
}

// sessionToken is the signed-in session's token, or "".
func sessionToken(c echo.Context) string {
	t, _ := c.Get(ctxToken).(string)
	return t
}
