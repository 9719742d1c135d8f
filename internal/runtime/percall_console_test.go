package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/policy"
)

// gateConsole is a console as internal/callgate describes it, for the
// runtime's side of per-call decisions: the bundle and keys of a
// fakeConsole, call requests filed idempotently on the call's identity, a
// long poll on their status, grants signed with the real bundle.SignGrant,
// and an in-memory single-use set behind the consume call.
type gateConsole struct {
	*httptest.Server
	bundles *fakeConsole
	key     bundle.SigningKey
	keys    bundle.KeySet
	clock   *clock

	mu       sync.Mutex
	requests map[string]*gateRequest
	identity map[string]string // call identity → request id
	used     map[string]bool   // consumed grant nonces
	changed  chan struct{}     // closed (and replaced) on every decision
	filed    []callgate.Request
	consumes int
	down     bool // call-request API answers 503
	// consumeDown makes only the consume call answer 503.
	consumeDown bool
	// refuseFiling, when set, is the runtime API error every filing gets
	// (the console's bound on pending requests, say).
	refuseFiling *consoleRefusal
	// grant, when set, changes each grant before it is signed; signer
	// replaces the bundle key it is signed with.
	grant  func(*bundle.Grant)
	signer *bundle.SigningKey
}

type gateRequest struct {
	req callgate.Request
	st  callgate.Status
}

func newGateConsole(t testing.TB, k bundle.SigningKey, clk *clock) *gateConsole {
	t.Helper()
	c := &gateConsole{bundles: newFakeConsole(t, keySet(k)), key: k, keys: *keySet(k), clock: clk,
		requests: map[string]*gateRequest{}, identity: map[string]string{}, used: map[string]bool{},
		changed: make(chan struct{})}
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.Close)
	return c
}

func (c *gateConsole) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, callgate.PathRequests) && r.URL.Path != callgate.PathConsume {
		c.bundles.serve(w, r)
		return
	}
	c.mu.Lock()
	down := c.down
	c.mu.Unlock()
	switch {
	case r.Header.Get("Authorization") != "Bearer "+testToken:
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
	case down:
		http.Error(w, "down", http.StatusServiceUnavailable)
	case r.Method == http.MethodPost && r.URL.Path == callgate.PathRequests:
		c.file(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, callgate.PathRequests+"/"):
		c.status(w, r)
	case r.Method == http.MethodPost && r.URL.Path == callgate.PathConsume:
		c.consume(w, r)
	default:
		http.NotFound(w, r)
	}
}

func identityOf(q callgate.Request) string {
	p := q.Principal
	return strings.Join([]string{p.Kind, p.Subject, p.ClientID, q.Tool, q.DefinitionDigest, q.ArgumentsDigest, strconv.FormatInt(q.BundleVersion, 10)}, "|")
}

func (c *gateConsole) file(w http.ResponseWriter, r *http.Request) {
	var q callgate.Request
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil || q.Schema != callgate.RequestSchema || q.Confirmed && q.Mode != policy.PerCallConfirm {
		http.Error(w, `{"error":"invalid","message":"not a call request"}`, http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.refuseFiling; e != nil {
		writeJSON(w, e.status, map[string]string{"error": "limit", "message": e.message})
		return
	}
	c.filed = append(c.filed, q)
	code := http.StatusOK
	id, ok := c.identity[identityOf(q)]
	if !ok {
		id = fmt.Sprintf("cr_%d", len(c.requests)+1)
		c.identity[identityOf(q)] = id
		c.requests[id] = &gateRequest{req: q, st: callgate.Status{ID: id, State: callgate.Pending,
			URL: c.URL + "/calls/" + id, ExpiresAt: c.clock.Now().Add(time.Hour)}}
		code = http.StatusCreated
	}
	if q.Confirmed && c.requests[id].st.State == callgate.Pending {
		c.decideLocked(id, callgate.Approved, q.Principal.Subject, "")
	}
	writeJSON(w, code, c.requests[id].st)
}

func (c *gateConsole) status(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, callgate.PathRequests+"/")
	secs, _ := strconv.Atoi(r.URL.Query().Get("wait"))
	deadline := time.After(min(time.Duration(secs)*time.Second, callgate.MaxWait))
	for {
		c.mu.Lock()
		gr, ok := c.requests[id]
		changed := c.changed
		var st callgate.Status
		if ok {
			st = gr.st
		}
		c.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		if st.State != callgate.Pending {
			writeJSON(w, http.StatusOK, st)
			return
		}
		select {
		case <-changed:
		case <-deadline:
			writeJSON(w, http.StatusOK, st)
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (c *gateConsole) consume(w http.ResponseWriter, r *http.Request) {
	var body callgate.Consume
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.consumes++
	if c.consumeDown {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	g, err := bundle.VerifyGrant([]byte(body.Grant), c.keys, c.clock.Now())
	switch {
	case err != nil && strings.Contains(err.Error(), "expired"):
		w.WriteHeader(http.StatusGone)
	case err != nil:
		http.Error(w, `{"error":"invalid","message":"the grant does not verify"}`, http.StatusBadRequest)
	case c.used[g.Nonce]:
		w.WriteHeader(http.StatusConflict)
	default:
		c.used[g.Nonce] = true
		if gr, ok := c.requests[g.CallRequest]; ok {
			gr.st.State, gr.st.Grant = callgate.Consumed, ""
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// decide approves (with a freshly signed grant) or denies request id, and
// wakes every long poll.
func (c *gateConsole) decide(t testing.TB, id, state, by, comment string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.requests[id]; !ok {
		t.Fatalf("no call request %s", id)
	}
	c.decideLocked(id, state, by, comment)
}

func (c *gateConsole) decideLocked(id, state, by, comment string) {
	gr := c.requests[id]
	gr.st.State, gr.st.DecidedBy, gr.st.Comment = state, by, comment
	if state == callgate.Approved {
		gr.st.Grant = c.signGrant(gr)
	}
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *gateConsole) signGrant(gr *gateRequest) string {
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	p, now := gr.req.Principal, c.clock.Now()
	g := bundle.Grant{ArgumentsDigest: gr.req.ArgumentsDigest, BundleVersion: gr.req.BundleVersion, CallRequest: gr.st.ID,
		DecidedBy: "sec", DefinitionDigest: gr.req.DefinitionDigest, IssuedAt: now, Mode: gr.req.Mode,
		Nonce: hex.EncodeToString(nonce[:]), NotAfter: now.Add(bundle.DefaultGrantLifetime),
		Principal: bundle.GrantPrincipal{ClientID: p.ClientID, Kind: p.Kind, Subject: p.Subject}, Tool: gr.req.Tool}
	if c.grant != nil {
		c.grant(&g)
	}
	k := c.key
	if c.signer != nil {
		k = *c.signer
	}
	signed, err := bundle.SignGrant(g, k)
	if err != nil {
		panic(err) // a test's grant hook made a grant SignGrant refuses
	}
	return string(signed)
}

func (c *gateConsole) setDown(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = down
}

// filedRequests are the requests filed so far; consumed the consume calls.
func (c *gateConsole) filedRequests() []callgate.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]callgate.Request(nil), c.filed...)
}

func (c *gateConsole) consumeCalls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.consumes
}

// waitFiled waits until n requests were filed and returns the last.
func (c *gateConsole) waitFiled(t testing.TB, n int) callgate.Request {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if f := c.filedRequests(); len(f) >= n {
			return f[n-1]
		}
	}
	t.Fatalf("%d call requests filed, want %d", len(c.filedRequests()), n)
	return callgate.Request{}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
