package web

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/toolgate/toolgate/internal/apperr"
)

// Request bodies. Every route but an upload takes a small form, so every
// body is bounded by maxFormBody before anything reads it, and multipart
// bodies are refused outside the upload routes. An upload route takes up to
// maxUploadBytes, and its body is read only after the session and role
// checks (route middleware) and the CSRF check (uploadGuard): an anonymous
// or cross-site upload is answered without parsing it.
const maxFormBody = 64 << 10

// uploadRoutes are the routes that take a multipart upload ("METHOD path"
// as registered in routes.go).
var uploadRoutes = map[string]bool{http.MethodPost + " /sources": true}

func isUploadRoute(c echo.Context) bool { return uploadRoutes[c.Request().Method+" "+c.Path()] }

var (
	errBodyTooLarge = apperr.Errorf(apperr.TooLarge, "This request is larger than %d KiB, the limit for a form. Shorten what you typed and try again.", maxFormBody>>10)
	errNoUploadHere = apperr.Invalidf("This page does not take file uploads.")
)

// limitedBody is a request body cut at a limit that remembers whether the
// client sent more, so the error handler can answer 413 whatever the
// handler made of the truncated form.
type limitedBody struct {
	io.ReadCloser
	limit, left int64
	over        bool
	tooLarge    error // what to answer when over
}

const ctxLimitedBody = "toolgate.limited_body"

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Read one byte past the limit to tell "exactly the limit" from more.
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			b.over = true
			return 0, &http.MaxBytesError{Limit: b.limit}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// limitBody bounds c's request body to limit bytes and refuses at once a
// body announced as larger.
func limitBody(c echo.Context, limit int64, tooLarge error) error {
	r := c.Request()
	if r.ContentLength > limit {
		return tooLarge
	}
	lb := &limitedBody{ReadCloser: r.Body, limit: limit, left: limit, tooLarge: tooLarge}
	r.Body = lb
	c.Set(ctxLimitedBody, lb)
	return nil
}

// bodyOverLimit returns the error to answer when the request body was cut
// at its limit, or nil.
func bodyOverLimit(c echo.Context) error {
	if lb, _ := c.Get(ctxLimitedBody).(*limitedBody); lb != nil && lb.over {
		return lb.tooLarge
	}
	return nil
}

// limitBodies is the router-level limit: maxFormBody and no multipart for
// every route but the upload routes, which uploadGuard bounds.
func limitBodies(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if isUploadRoute(c) {
			return next(c)
		}
		if isMultipart(c.Request()) {
			return errNoUploadHere
		}
		if err := bufferFormBody(c.Request()); err != nil {
			return err
		}
		return next(c)
	}
}

// bufferFormBody reads a form's body (at most maxFormBody) up front, so a
// body over the limit is answered 413 before any handler or the CSRF check
// sees a truncated form.
func bufferFormBody(r *http.Request) error {
	if r.ContentLength > maxFormBody {
		return errBodyTooLarge
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxFormBody+1))
	if err != nil {
		return apperr.Invalidf("The request body could not be read.")
	}
	if len(b) > maxFormBody {
		return errBodyTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return nil
}

func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	return err == nil && mt == echo.MIMEMultipartForm
}

// uploadGuard runs on upload routes after the role check: it bounds the
// body to maxUploadBytes and does the CSRF check before the body is
// parsed. A browser's Sec-Fetch-Site decides when present, as in the global
// check; otherwise HTMX and scripts send the token as a header; a plain form sends
// it as the _csrf field, which the console's forms place before any file,
// so it is read from the first parts of the stream (at most maxFormBody of
// fields, no file before it) and the rest is parsed only when it matches.
func (s *Server) uploadGuard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		// Browsers say where a request comes from, and the global CSRF
		// check (echo's) trusts that first: same-origin (or "none") passes
		// without a token, same-site and cross-site are refused.
		switch r.Header.Get(echo.HeaderSecFetchSite) {
		case "":
		case "same-origin", "none":
			c.Set("csrf", middleware.CSRFUsingSecFetchSite)
			if err := limitBody(c, maxUploadBytes, errTooLarge); err != nil {
				return err
			}
			return next(c)
		default:
			return errCSRF
		}
		cookie, err := c.Cookie(csrfCookie)
		if err != nil || cookie.Value == "" {
			return errCSRF
		}
		c.Set("csrf", cookie.Value)
		if h := r.Header.Get(echo.HeaderXCSRFToken); h != "" {
			if !sameToken(h, cookie.Value) {
				return errCSRF
			}
			if err := limitBody(c, maxUploadBytes, errTooLarge); err != nil {
				return err
			}
			return next(c)
		}
		if !isMultipart(r) {
			// A form without files: small, like any other form.
			if err := bufferFormBody(r); err != nil {
				return err
			}
			if !sameToken(c.FormValue("_csrf"), cookie.Value) {
				return errCSRF
			}
			return next(c)
		}
		if err := limitBody(c, maxUploadBytes, errTooLarge); err != nil {
			return err
		}
		if err := readMultipartAfterToken(r, cookie.Value); err != nil {
			return err
		}
		return next(c)
	}
}

// readMultipartAfterToken reads the leading fields of r's multipart body up
// to the _csrf field, checks it, then parses the rest into r.MultipartForm
// (and r.Form), as ParseMultipartForm would have.
func readMultipartAfterToken(r *http.Request, token string) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return apperr.Invalidf("The upload could not be read.")
	}
	values := url.Values{}
	budget := int64(maxFormBody)
	for {
		p, err := mr.NextPart()
		if err != nil {
			return errCSRF // the stream ended (or broke) before a token
		}
		if p.FileName() != "" {
			return errCSRF // a file before the token: not one of our forms
		}
		b, err := io.ReadAll(io.LimitReader(p, budget+1))
		if err != nil {
			return uploadReadError(err)
		}
		if budget -= int64(len(b)); budget < 0 {
			return errCSRF
		}
		if p.FormName() == "_csrf" {
			if !sameToken(string(b), token) {
				return errCSRF
			}
			break
		}
		values.Add(p.FormName(), string(b))
	}
	form, err := mr.ReadForm(32 << 20)
	if err != nil {
		return uploadReadError(err)
	}
	for k, vs := range values {
		form.Value[k] = append(vs, form.Value[k]...)
	}
	r.MultipartForm = form
	r.PostForm = url.Values(form.Value)
	r.Form = url.Values{}
	for k, vs := range r.PostForm {
		r.Form[k] = append([]string(nil), vs...)
	}
	for k, vs := range r.URL.Query() {
		r.Form[k] = append(r.Form[k], vs...)
	}
	return nil
}

func uploadReadError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) || errors.Is(err, multipart.ErrMessageTooLarge) {
		return errTooLarge
	}
	return apperr.Invalidf("The upload could not be read.")
}

func sameToken(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
