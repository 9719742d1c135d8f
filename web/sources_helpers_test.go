package web

import (
	"archive/zip"
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// petsYAML is a small document; {extra} is replaced by more paths.
const petsYAML = `openapi: 3.0.3
info: {title: Pets, version: "1"}
servers: [{url: https://pets.example.com}]
paths:
  /pets:
    get: {operationId: listPets, summary: List pets, tags: [pets], responses: {"200": {description: ok}}}
    post: {operationId: createPet, summary: Add a pet, tags: [pets], responses: {"201": {description: ok}}}
  /pets/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    get: {operationId: getPet, summary: Show a pet, responses: {"200": {description: ok}}}
    delete: {operationId: deletePet, summary: Delete a pet, responses: {"204": {description: ok}}}
{extra}`

func petsDoc(extra string) string { return strings.Replace(petsYAML, "{extra}", extra, 1) }

// uploadFile is one file of a multipart upload.
type uploadFile struct{ name, data string }

// upload posts a multipart import form as admin with a valid CSRF token.
func (a *testApp) upload(path string, fields map[string]string, files ...uploadFile) *httptest.ResponseRecorder {
	a.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			a.t.Fatal(err)
		}
	}
	for _, f := range files {
		part, err := w.CreateFormFile("files", f.name)
		if err != nil {
			a.t.Fatal(err)
		}
		part.Write([]byte(f.data))
	}
	if err := w.Close(); err != nil {
		a.t.Fatal(err)
	}
	req := httptest.NewRequest("POST", path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.AddCookie(a.sessionCookie("admin"))
	req.AddCookie(&http.Cookie{Name: "toolgate_csrf", Value: testCSRF})
	req.Header.Set("X-CSRF-Token", testCSRF)
	rec := httptest.NewRecorder()
	a.srv.ServeHTTP(rec, req)
	return rec
}

func zipOf(t *testing.T, files ...uploadFile) string {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.data))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// testRec wraps a recorder for tests that pass it around.
type testRec struct{ *httptest.ResponseRecorder }

// httpBody wraps a page body for wantBody.
func httpBody(s string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	rec.Body.WriteString(s)
	return rec
}
