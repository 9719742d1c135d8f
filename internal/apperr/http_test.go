package apperr

import "testing"

// Every code has its status, and a status names its code back: the JSON
// errors of the runtime API and the console's pages use this one mapping.
func TestHTTPStatusRoundTrips(t *testing.T) {
	for code, want := range map[string]int{Invalid: 400, Unauthorized: 401, Forbidden: 403, NotFound: 404,
		Conflict: 409, Unavailable: 503, TooLarge: 413, Internal: 500} {
		if got := HTTPStatus(code); got != want {
			t.Errorf("HTTPStatus(%s) = %d, want %d", code, got, want)
		}
		if back := CodeForStatus(want); back != code {
			t.Errorf("CodeForStatus(%d) = %s, want %s", want, back, code)
		}
	}
	if got := HTTPStatus("no_such_code"); got != 500 {
		t.Errorf("an unknown code answers %d, want 500", got)
	}
	for status, want := range map[int]string{405: "method_not_allowed", StatusClientClosed: "client_closed", 418: "error"} {
		if got := CodeForStatus(status); got != want {
			t.Errorf("CodeForStatus(%d) = %s, want %s", status, got, want)
		}
	}
}
