package agentauth

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"time"
)

// keysRefetch is how long a fetched JWKS answers again for the same URL.
// go-oidc checks a token's signature before its issuer and fetches the key
// set again whenever a token names a key id it has not cached: without
// this, every forged token (or one from another provider) would cost the
// provider a JWKS request. A key the provider rotates in is seen at most
// this long late.
const keysRefetch = 10 * time.Second

// keysTransport replays the last successful GET response of a URL for
// keysRefetch instead of asking again. It serves only the key set's client.
type keysTransport struct {
	next http.RoundTripper
	now  func() time.Time

	mu   sync.Mutex
	last map[string]keysAnswer
}

type keysAnswer struct {
	at     time.Time
	header http.Header
	body   []byte
}

// RoundTrip implements http.RoundTripper.
func (t *keysTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet {
		return t.next.RoundTrip(r)
	}
	u := r.URL.String()
	t.mu.Lock()
	a, ok := t.last[u]
	t.mu.Unlock()
	if ok && t.now().Sub(a.at) < keysRefetch {
		return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: a.header.Clone(), Body: io.NopCloser(bytes.NewReader(a.body)), ContentLength: int64(len(a.body)), Request: r}, nil
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.last[u] = keysAnswer{at: t.now(), header: resp.Header.Clone(), body: body}
	t.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// keysClient is c with its transport wrapped in a keysTransport.
func keysClient(c *http.Client, now func() time.Time) *http.Client {
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	kc := *c
	kc.Transport = &keysTransport{next: next, now: now, last: map[string]keysAnswer{}}
	return &kc
}
