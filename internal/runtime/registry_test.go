package runtime

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"oras.land/oras-go/v2/registry/remote"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/testing/ocitest"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// countingTransport counts the registry requests by method.
type countingTransport struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.counts[req.Method]++
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (c *countingTransport) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.counts
	c.counts = map[string]int{}
	return out
}

// registryFixture is a real registry, a pusher for it and a runtime whose
// bundle source it is.
type registryFixture struct {
	reg    *ocitest.Registry
	push   *oci.Client
	rt     *Runtime
	counts *countingTransport
	key    bundle.SigningKey
	clk    *clock
	logs   *syncbuf.Buffer
}

func newRegistryFixture(t *testing.T, k bundle.SigningKey, clk *clock, console string) *registryFixture {
	t.Helper()
	reg := ocitest.Start(t, ocitest.Options{Auth: true})
	push, err := oci.New(reg.Target("toolgate/bundles"), oci.Options{PlainHTTP: true, Credentials: reg.Credentials})
	if err != nil {
		t.Fatal(err)
	}
	counts := &countingTransport{counts: map[string]int{}}
	logs := &syncbuf.Buffer{}
	rt, err := New(Options{Logger: slog.New(slog.NewTextHandler(logs, nil)), BundleSource: reg.Target("toolgate/bundles").String(), ConsoleURL: console, Token: testToken,
		Registry: oci.Options{PlainHTTP: true, Credentials: reg.Credentials, HTTPClient: &http.Client{Transport: counts}},
		Name:     "test-rt", DataDir: t.TempDir(), TrustedKeys: keySet(k), MaxStaleness: 10 * time.Minute,
		Executor: sampleCredentials(t), Now: clk.Now, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return &registryFixture{reg: reg, push: push, rt: rt, counts: counts, key: k, clk: clk, logs: logs}
}

// publish does what the console's pusher does: the bundle, then a
// timestamp naming it, signed now.
func (f *registryFixture) publish(t *testing.T, version int64, signed []byte) {
	t.Helper()
	f.pushBundle(t, version, signed)
	f.stamp(t, f.key, version, signed)
}

// pushBundle pushes the bundle alone (no timestamp).
func (f *registryFixture) pushBundle(t *testing.T, version int64, signed []byte) {
	t.Helper()
	if _, err := f.push.Push(t.Context(), oci.Artifact{Version: version, Signed: signed}); err != nil {
		t.Fatal(err)
	}
}

// stamp pushes a timestamp signed by k now, valid 3 minutes, naming the
// bundle version with the signed bytes.
func (f *registryFixture) stamp(t *testing.T, k bundle.SigningKey, version int64, signed []byte) {
	t.Helper()
	ts, err := bundle.SignTimestamp(version, bundle.BundleDigest(signed), f.clk.Now(), 3*time.Minute, k)
	if err != nil {
		t.Fatal(err)
	}
	f.pushStamp(t, version, ts)
}

// pushStamp puts raw bytes under the timestamp tag, as anyone with write
// access to the registry could.
func (f *registryFixture) pushStamp(t *testing.T, version int64, raw []byte) {
	t.Helper()
	if _, err := f.push.PushTimestamp(t.Context(), version, raw, f.clk.Now()); err != nil {
		t.Fatal(err)
	}
}

// retagLatest points latest at tag, as a misbehaving or compromised
// registry could.
func (f *registryFixture) retagLatest(t *testing.T, tag string) {
	t.Helper()
	repo, err := remote.NewRepository(f.reg.Addr + "/toolgate/bundles")
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	repo.Client = &authClient{creds: f.reg.Credentials}
	desc, err := repo.Resolve(t.Context(), tag)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(t.Context(), desc, oci.TagLatest); err != nil {
		t.Fatal(err)
	}
}

// authClient sends basic credentials on every request.
type authClient struct{ creds oci.Credentials }

func (a *authClient) Do(req *http.Request) (*http.Response, error) {
	req.SetBasicAuth(a.creds.Username, a.creds.Password)
	return http.DefaultClient.Do(req)
}

// TestRegistrySourceServesToolsAndPollsWithTwoHEADs: while nothing
// changes, a poll is one HEAD for the timestamp's tag and one for latest;
// a re-signed timestamp naming the bundle in force confirms it as of its
// issue time.
func TestRegistrySourceServesToolsAndPollsWithTwoHEADs(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	clk := newClock()
	f := newRegistryFixture(t, k, clk, "")
	f.publish(t, 1, signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))

	mustSync(t, f.rt)
	if st := f.rt.Status(); st.Version != 1 || !strings.HasPrefix(st.ETag, "sha256:") {
		t.Fatalf("status = %+v, want v1 with the manifest digest as ETag", st)
	}
	wantServed(t, f.rt, "getOrder")
	f.counts.take()
	clk.Advance(time.Minute)
	mustSync(t, f.rt)
	if got := f.counts.take(); got[http.MethodHead] != 2 || got[http.MethodGet] != 0 {
		t.Errorf("an unchanged registry cost %v, want two HEADs", got)
	}
	clk.Advance(time.Minute)
	f.stamp(t, k, 1, signBundle(t, k, 1, t0, 0, up.URL, getOrderTool()))
	mustSync(t, f.rt)
	if st := f.rt.Status(); !st.ConfirmedAt.Equal(clk.Now()) || st.Stale {
		t.Errorf("a re-signed timestamp did not confirm the bundle: %+v", st)
	}

	f.publish(t, 2, signBundle(t, k, 2, clk.Now(), 0, up.URL, getOrderTool(), deleteOrderTool()))
	mustSync(t, f.rt)
	if st := f.rt.Status(); st.Version != 2 || st.Tools != 2 {
		t.Fatalf("after v2 was pushed: %+v", st)
	}
}

func TestRegistrySourceRefusesOlderAndTampered(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	clk := newClock()
	f := newRegistryFixture(t, k, clk, "")
	// Bundles only, no timestamp: the runtime reads latest on every poll.
	f.pushBundle(t, 1, signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
	v2 := signBundle(t, k, 2, clk.Now(), 0, up.URL, getOrderTool())
	f.pushBundle(t, 2, v2)
	mustSync(t, f.rt)

	// The registry serves v1 again under latest: refused, v2 kept.
	f.retagLatest(t, "v1")
	if err := f.rt.Sync(context.Background()); !errors.Is(err, bundle.ErrStaleVersion) {
		t.Fatalf("older bundle under latest: Sync = %v, want %v", err, bundle.ErrStaleVersion)
	}
	if v := f.rt.Status().Version; v != 2 {
		t.Fatalf("version in force = %d, want the last good 2", v)
	}

	// Modified bytes under latest (a valid artifact, a broken signature).
	tampered := signBundle(t, k, 3, clk.Now(), 0, up.URL, getOrderTool(), deleteOrderTool())
	tampered[strings.IndexByte(string(tampered), '.')+10] ^= 0x01
	f.pushBundle(t, 3, tampered)
	if err := f.rt.Sync(context.Background()); !errors.Is(err, bundle.ErrTampered) {
		t.Fatalf("tampered bundle: Sync = %v, want %v", err, bundle.ErrTampered)
	}
	if st := f.rt.Status(); st.Version != 2 || st.Tools != 1 {
		t.Fatalf("status = %+v, want the last good v2", st)
	}
	wantServed(t, f.rt, "getOrder")
}

func TestRegistrySourceReportsToConsole(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	clk := newClock()
	con := newFakeConsole(t, keySet(k)) // publishes nothing: bundles come from the registry
	f := newRegistryFixture(t, k, clk, con.URL)
	f.publish(t, 4, signBundle(t, k, 4, clk.Now(), 0, up.URL, getOrderTool()))
	mustSync(t, f.rt)
	mustSync(t, f.rt)
	reqs := con.requests()
	if len(reqs) != 2 {
		t.Fatalf("reports to the console = %d, want 2", len(reqs))
	}
	last := reqs[1]
	if last.Get("If-None-Match") != "*" || last.Get(HeaderBundleVersion) != "4" ||
		last.Get(HeaderInstanceID) != f.rt.InstanceID() || last.Get("Authorization") != "Bearer "+testToken {
		t.Errorf("report headers = %v", last)
	}
}

func TestRegistrySourceOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"bad location", Options{BundleSource: "https://reg/x", DataDir: "d"}, "want oci://"},
		{"tofu without console", Options{BundleSource: "oci://reg/x", DataDir: "d", TrustOnFirstUse: true}, "trust on first use"},
		{"console without token", Options{BundleSource: "oci://reg/x", ConsoleURL: "http://c", DataDir: "d"}, "no runtime token"},
		{"no keys", Options{BundleSource: "oci://reg/x", DataDir: t.TempDir()}, "no trusted keys"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

// wantServed checks a call of tool reached the upstream: the executor ran
// it (the sample API has no such order, so 404 REJECTED is the answer).
func wantServed(t *testing.T, rt *Runtime, tool string) {
	t.Helper()
	res := rt.Call(context.Background(), tool, map[string]any{"order_id": "ord_0001"})
	if res.Err != nil && res.Err.Class != executor.ClassRejected {
		t.Fatalf("%s is not served: %v", tool, res.Err)
	}
}
