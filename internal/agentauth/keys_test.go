package agentauth

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testing/oidctest"
)

// TestKeysRefetchBounded: tokens whose key the provider does not have make
// go-oidc fetch the JWKS again; within keysRefetch the runtime answers
// from the last fetch, so a flood of forged tokens costs the provider one
// request, not one each.
func TestKeysRefetchBounded(t *testing.T) {
	p := oidctest.Start(t)
	other := oidctest.Start(t)
	other.AddAgent(oidctest.Agent{ID: "a", Secret: "s", Audience: []string{"https://rt.example/mcp"}})
	forged, err := other.AgentToken(t.Context(), "a", "s")
	if err != nil {
		t.Fatal(err)
	}
	var jwks atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/openid-configuration" {
			jwks.Add(1)
		}
		resp, err := http.Get(p.Issuer + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(proxy.Close)
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	// Discovery names the provider's own jwks_uri; the key set client is
	// what is bounded, so route it through the counting proxy.
	c := &http.Client{Transport: rewrite{to: proxy.URL, from: p.Issuer}}
	o, err := NewOIDC(OIDCSettings{Issuer: p.Issuer, Audience: "https://rt.example/mcp", HTTPClient: c, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	// go-oidc hands a finished fetch to callers that come while it clears
	// it; the pauses keep each verification its own.
	for range 5 {
		if _, err := o.verify(t.Context(), forged); err == nil {
			t.Fatal("a token of another provider was accepted")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := jwks.Load(); n != 1 {
		t.Errorf("5 forged tokens fetched the JWKS %d times, want 1", n)
	}
	now.Add(int64(keysRefetch + time.Second))
	for i := 0; i < 50 && jwks.Load() < 2; i++ {
		_, _ = o.verify(t.Context(), forged)
		time.Sleep(20 * time.Millisecond)
	}
	if n := jwks.Load(); n != 2 {
		t.Errorf("after %v the JWKS was fetched %d times in all, want 2", keysRefetch, n)
	}
}

// rewrite sends requests for from to to instead.
type rewrite struct{ from, to string }

func (rw rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	u, _ := url.Parse(strings.Replace(r.URL.String(), rw.from, rw.to, 1))
	r.URL, r.Host = u, u.Host
	return http.DefaultTransport.RoundTrip(r)
}
