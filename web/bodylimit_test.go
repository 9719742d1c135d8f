package web

import (
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// countingReader counts how much of a request body the server consumed.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestBodyLimitOnEveryRoute: a body over the form limit on an ordinary
// route is refused with 413 and a sentence saying why, without the server
// reading past the limit, whether the size is announced or streamed.
func TestBodyLimitOnEveryRoute(t *testing.T) {
	a := newTestApp(t, true)
	const huge = 40 << 20
	for _, tc := range []struct {
		name      string
		path      string
		announced bool
		signedIn  bool
	}{
		{"anonymous, announced", "/login", true, false},
		{"anonymous, streamed", "/login", false, false},
		{"admin, announced", "/defaults", true, true},
		{"admin, streamed", "/defaults", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &countingReader{r: io.MultiReader(strings.NewReader("email=a%40example.com&x="), io.LimitReader(zeroReader{}, huge))}
			req := httptest.NewRequest(http.MethodPost, tc.path, body)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.ContentLength = -1
			if tc.announced {
				req.ContentLength = huge
			}
			if tc.signedIn {
				req.AddCookie(a.sessionCookie("admin"))
				req.AddCookie(&http.Cookie{Name: csrfCookie, Value: testCSRF})
				req.Header.Set("X-CSRF-Token", testCSRF)
			}
			rec := httptest.NewRecorder()
			a.srv.ServeHTTP(rec, req)
			wantStatus(t, rec, http.StatusRequestEntityTooLarge)
			wantPage(t, rec, in(tid("error-page"), hasText("larger than 64 KiB")))
			if body.n > maxFormBody+1 {
				t.Errorf("server read %d bytes of an over-limit body (limit %d)", body.n, maxFormBody)
			}
		})
	}
}

// TestMultipartOnlyOnUploadRoutes: a multipart body to any other route is
// refused before a byte of it is read.
func TestMultipartOnlyOnUploadRoutes(t *testing.T) {
	a := newTestApp(t, true)
	for _, path := range []string{"/login", "/defaults", "/tools/bulk"} {
		body := &countingReader{r: io.LimitReader(zeroReader{}, 1<<20)}
		req := httptest.NewRequest(http.MethodPost, path, body)
		req.Header.Set("Content-Type", "multipart/form-data; boundary=xyz")
		req.AddCookie(a.sessionCookie("admin"))
		req.AddCookie(&http.Cookie{Name: csrfCookie, Value: testCSRF})
		req.Header.Set("X-CSRF-Token", testCSRF)
		rec := httptest.NewRecorder()
		a.srv.ServeHTTP(rec, req)
		wantStatus(t, rec, http.StatusBadRequest)
		wantPage(t, rec, in(tid("error-page"), hasText("does not take file uploads")))
		if body.n != 0 {
			t.Errorf("%s: server read %d bytes of a refused multipart body", path, body.n)
		}
	}
}

// multipartBody is an import form in the order a browser sends it: the
// fields in document order (the _csrf field first), then the files.
func multipartBody(t *testing.T, fields [][2]string, fileName string, file io.Reader) (io.Reader, string) {
	t.Helper()
	pr, pw := io.Pipe()
	w := multipart.NewWriter(pw)
	go func() {
		for _, f := range fields {
			if err := w.WriteField(f[0], f[1]); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		part, err := w.CreateFormFile("files", fileName)
		if err == nil {
			_, err = io.Copy(part, file)
		}
		if err == nil {
			err = w.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr, w.FormDataContentType()
}

// TestUploadReadOnlyAfterAuthAndCSRF: an upload is not read at all for an
// anonymous user or a signed-in viewer, and read only up to the token
// for an admin whose form carries no valid CSRF token.
func TestUploadReadOnlyAfterAuthAndCSRF(t *testing.T) {
	a := newTestApp(t, true)
	const size = 20 << 20
	for _, tc := range []struct {
		name    string
		role    string
		fields  [][2]string
		status  int
		maxRead int64
	}{
		{"anonymous", "", [][2]string{{"_csrf", testCSRF}, {"name", "pets"}}, http.StatusUnauthorized, 0},
		{"viewer", "viewer", [][2]string{{"_csrf", testCSRF}, {"name", "pets"}}, http.StatusForbidden, 0},
		{"admin, wrong token", "admin", [][2]string{{"_csrf", "forged"}, {"name", "pets"}}, http.StatusForbidden, 64 << 10},
		{"admin, no token before the file", "admin", [][2]string{{"name", "pets"}}, http.StatusForbidden, 64 << 10},
		{"admin, cross-site browser", "admin", [][2]string{{"_csrf", testCSRF}, {"name", "pets"}}, http.StatusForbidden, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ct := multipartBody(t, tc.fields, "big.yaml", io.LimitReader(zeroReader{}, size))
			body := &countingReader{r: r}
			req := httptest.NewRequest(http.MethodPost, "/sources", body)
			req.Header.Set("Content-Type", ct)
			req.AddCookie(&http.Cookie{Name: csrfCookie, Value: testCSRF})
			if tc.role != "" {
				req.AddCookie(a.sessionCookie(tc.role))
			}
			if strings.Contains(tc.name, "cross-site") {
				req.Header.Set("Sec-Fetch-Site", "cross-site")
			}
			rec := httptest.NewRecorder()
			a.srv.ServeHTTP(rec, req)
			wantStatus(t, rec, tc.status)
			if body.n > tc.maxRead {
				t.Errorf("server read %d bytes of the upload, want at most %d", body.n, tc.maxRead)
			}
			if srcs, _ := a.db.ListSources(context.Background()); len(srcs) != 0 {
				t.Errorf("stored %d sources", len(srcs))
			}
		})
	}
}

// TestLargeUploadAcceptedForAdmin: the upload route still takes a document
// far over the form limit, from a plain form (token as the first field) and
// from HTMX (token as a header).
func TestLargeUploadAcceptedForAdmin(t *testing.T) {
	a := newTestApp(t, true)
	// A valid document of about 3 MiB: a long description on the API.
	doc := strings.Replace(petsDoc(""), "info: {title: Pets, version: \"1\"}",
		"info: {title: Pets, version: \"1\", description: \""+strings.Repeat("a pet shop ", 300_000)+"\"}", 1)
	if len(doc) < 3<<20 {
		t.Fatalf("test document is only %d bytes", len(doc))
	}
	// Token as the first field, token as a header, and a browser that
	// says the form is same-origin (it then sends no token at all).
	for i, how := range []string{"field", "header", "same-origin"} {
		name := fmt.Sprintf("pets%d", i)
		fields := [][2]string{{"name", name}}
		if how == "field" {
			fields = append([][2]string{{"_csrf", testCSRF}}, fields...)
		}
		r, ct := multipartBody(t, fields, "pets.yaml", strings.NewReader(doc))
		req := httptest.NewRequest(http.MethodPost, "/sources", r)
		req.Header.Set("Content-Type", ct)
		req.AddCookie(a.sessionCookie("admin"))
		switch how {
		case "header":
			req.AddCookie(&http.Cookie{Name: csrfCookie, Value: testCSRF})
			req.Header.Set("X-CSRF-Token", testCSRF)
		case "field":
			req.AddCookie(&http.Cookie{Name: csrfCookie, Value: testCSRF})
		case "same-origin":
			req.Header.Set("Sec-Fetch-Site", "same-origin")
		}
		rec := httptest.NewRecorder()
		a.srv.ServeHTTP(rec, req)
		wantStatus(t, rec, http.StatusSeeOther)
		if loc := rec.Header().Get("Location"); loc != "/sources/"+name+"?done=imported" {
			t.Errorf("%s: Location %q", how, loc)
		}
	}
	// A plain (non-multipart) form on the upload route, its token in the
	// body, is a small form like any other: the body is not an upload.
	form := url.Values{"_csrf": {testCSRF}, "name": {"big"}, "document": {strings.Repeat("x", maxFormBody)}}
	req := httptest.NewRequest(http.MethodPost, "/sources", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(a.sessionCookie("admin"))
	req.AddCookie(&http.Cookie{Name: csrfCookie, Value: testCSRF})
	rec := httptest.NewRecorder()
	a.srv.ServeHTTP(rec, req)
	wantStatus(t, rec, http.StatusRequestEntityTooLarge)
}
