package runtimeapi

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/valyala/fasthttp"
)

// The three places a bundle request may be held (longpoll.go): the echo
// handler and the two fast paths. Each waits only when the request asks
// (Prefer: wait) and its ETag is current; a change found while waiting is
// answered with the new bundle after checking the token again, so a token
// revoked meanwhile gets nothing newer.

// holdBundle is apiBundle's part: it returns the form to answer with.
func (s *Service) holdBundle(c echo.Context, form *servedBundle) (*servedBundle, error) {
	req := c.Request()
	wait, inm := s.waitAsked(c)
	if wait <= 0 || !form.notModified(inm) {
		return form, nil
	}
	next, changed := s.awaitBundle(req.Context(), inm, req.Header.Get(headerBundleSchemas), wait)
	if !changed {
		return form, nil
	}
	if _, err := s.runtimeToken(c); err != nil {
		return nil, err
	}
	return next, nil
}

// waitAsked is the wait an echo request asks for (0: none), said in
// Preference-Applied when there is one, and its If-None-Match.
func (s *Service) waitAsked(c echo.Context) (time.Duration, string) {
	h := c.Request().Header
	wait := preferWait(h.Get(headerPrefer), s.poll.max)
	if wait > 0 {
		c.Response().Header().Set(headerPreferenceApplied, appliedValue(wait))
	}
	return wait, h.Get("If-None-Match")
}

// holdNetHTTP is the net/http fast path's part, for a request whose ETag
// is current: it reports whether the wait ended without a change (answer
// 304 here, with Preference-Applied set), or false for a change (the
// full API answers, with the new bundle).
func (s *Service) holdNetHTTP(w http.ResponseWriter, r *http.Request, inm, schemas string) bool {
	wait := preferWait(headerValue(r.Header, headerPrefer), s.poll.max)
	if wait <= 0 {
		return true
	}
	if _, changed := s.awaitBundle(r.Context(), inm, schemas, wait); changed {
		return false
	}
	w.Header().Set(headerPreferenceApplied, appliedValue(wait))
	return true
}

// holdFastHTTP is the fasthttp listener's part: it returns the bundle and
// token id to answer with, or false when the token is no longer accepted
// (the full API answers).
func (s *Service) holdFastHTTP(ctx *fasthttp.RequestCtx, in *fetchHeaders, cur *servedBundle, tokenID int64) (*servedBundle, int64, bool) {
	wait := preferWait(in.prefer, s.poll.max)
	if wait <= 0 {
		return cur, tokenID, true
	}
	if cur.formFor(in.report.schemas).notModified(in.ifNoneMatch) {
		if _, changed := s.awaitBundle(ctx, in.ifNoneMatch, in.report.schemas, wait); changed {
			var ok bool
			if cur, tokenID, ok = s.fastBundle(ctx, in.authorization); !ok {
				return nil, 0, false
			}
		}
	}
	ctx.Response.Header.Set(headerPreferenceApplied, appliedValue(wait))
	return cur, tokenID, true
}

// holdKeys is apiKeys's part: for a request whose ETag names the current
// key set, it waits for a key change and returns the set's JSON and ETag
// to answer with.
func (s *Service) holdKeys(c echo.Context, body []byte, etag string) ([]byte, string) {
	req := c.Request()
	wait, inm := s.waitAsked(c)
	if wait <= 0 || !etagMatches(inm, etag) {
		return body, etag
	}
	s.poll.await(req.Context(), wait, func() bool {
		b, e, err := s.keySetJSON(req.Context())
		if err != nil || etagMatches(inm, e) {
			return false
		}
		body, etag = b, e
		return true
	})
	return body, etag
}

// keySetJSON is the JWK Set /api/v1/keys serves and its ETag.
func (s *Service) keySetJSON(ctx context.Context) ([]byte, string, error) {
	set, err := s.publicKeys(ctx)
	if err != nil {
		return nil, "", err
	}
	return keySetBytes(set)
}
