package web

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzSafeNext: whatever a sign-in link carries as ?next=, the redirect
// stays on this site.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/", "/users", "//evil.example", "https://evil.example", "/\\evil", "/%2F%2Fevil", "javascript:alert(1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		u, err := url.Parse(got)
		if err != nil || !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.HasPrefix(got, "/\\") || u.Host != "" || u.Scheme != "" {
			t.Fatalf("safeNext(%q) = %q leaves the site", next, got)
		}
	})
}
