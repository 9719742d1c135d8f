// Package httpcheck holds the assertions on recorded HTTP answers that the
// console's and the runtime API's handler tests share.
package httpcheck

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// Status fails the test unless rec has status want, showing the body.
func Status(t *testing.T, rec *httptest.ResponseRecorder, want int) {
	t.Helper()
	if rec.Code != want {
		t.Fatalf("status %d, want %d; body:\n%.600s", rec.Code, want, rec.Body.String())
	}
}

// Body reports every substring rec's body lacks (for JSON and text
// answers; HTML is checked by selector, internal/testing/htmlcheck).
func Body(t *testing.T, rec *httptest.ResponseRecorder, substrings ...string) {
	t.Helper()
	for _, s := range substrings {
		if !strings.Contains(rec.Body.String(), s) {
			t.Errorf("body lacks %q:\n%.800s", s, rec.Body.String())
		}
	}
}

// Bearer is the header map of a request carrying token, plus more
// name/value pairs.
func Bearer(token string, more ...string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + token}
	for i := 0; i+1 < len(more); i += 2 {
		h[more[i]] = more[i+1]
	}
	return h
}
