package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
)

func TestSyncAcceptsThenConfirmsWithETag(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	signed := signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool())
	con.publish(signed)
	dir := t.TempDir()
	r := newRuntime(t, rtOpts{dir: dir, keys: keySet(k), clock: clk, console: con.URL})

	mustSync(t, r)
	clk.Advance(5 * time.Minute)
	mustSync(t, r)

	reqs := con.requests()
	if len(reqs) != 2 {
		t.Fatalf("fetches = %d, want 2", len(reqs))
	}
	for i, want := range []struct{ version, inm string }{{"0", ""}, {"1", r.Status().ETag}} {
		h := reqs[i]
		if got := h.Get(HeaderBundleVersion); got != want.version {
			t.Errorf("fetch %d: %s = %q, want %q", i, HeaderBundleVersion, got, want.version)
		}
		if got := h.Get("If-None-Match"); got != want.inm {
			t.Errorf("fetch %d: If-None-Match = %q, want %q", i, got, want.inm)
		}
		if h.Get(HeaderRuntimeName) != "test-rt" || h.Get(HeaderInstanceID) != r.InstanceID() || r.InstanceID() == "" {
			t.Errorf("fetch %d: identity headers %q/%q, instance %q", i, h.Get(HeaderRuntimeName), h.Get(HeaderInstanceID), r.InstanceID())
		}
	}
	st := r.Status()
	if st.Version != 1 || !st.ConfirmedAt.Equal(clk.Now()) || st.Stale {
		t.Errorf("status after 304 = %+v, want v1 confirmed now", st)
	}
	onDisk, err := os.ReadFile(filepath.Join(dir, "runtime", "bundle.jws"))
	if err != nil || !bytes.Equal(onDisk, signed) {
		t.Errorf("persisted bundle differs from the accepted one (err %v)", err)
	}
}

func TestSyncRefusesBadBundlesAndKeepsLastGood(t *testing.T) {
	k, other := testKey(t, 1), testKey(t, 2)
	_, up := upstream(t)
	clk := newClock()
	good := signBundle(t, k, 5, clk.Now(), 0, up.URL, getOrderTool())
	tampered := []byte(strings.Replace(string(signBundle(t, k, 6, clk.Now(), 0, up.URL, getOrderTool())), ".", ".e", 1))
	flipped := signBundle(t, k, 6, clk.Now(), 0, up.URL, getOrderTool())
	mid := bytes.IndexByte(flipped, '.') + 10
	flipped[mid] ^= 0x01
	tests := []struct {
		name   string
		signed []byte
		want   error
	}{
		{"tampered payload", flipped, bundle.ErrTampered},
		{"garbled payload", tampered, bundle.ErrTampered},
		{"unknown key", signBundle(t, other, 6, clk.Now(), 0, up.URL, getOrderTool()), bundle.ErrUnknownKey},
		{"older version", signBundle(t, k, 4, clk.Now(), 0, up.URL, getOrderTool()), bundle.ErrStaleVersion},
		{"same version, other content", signBundle(t, k, 5, clk.Now(), 0, up.URL, getOrderTool(), deleteOrderTool()), bundle.ErrStaleVersion},
		{"expired", signBundle(t, k, 6, clk.Now().Add(-2*time.Hour), time.Hour, up.URL, getOrderTool()), bundle.ErrExpired},
		{"unsigned", []byte("not a jws"), bundle.ErrUnsigned},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			con := newFakeConsole(t, keySet(k))
			con.publish(good)
			dir := t.TempDir()
			r := newRuntime(t, rtOpts{dir: dir, keys: keySet(k), clock: clk, console: con.URL})
			mustSync(t, r)
			con.publish(tc.signed)
			err := r.Sync(context.Background())
			if !errors.Is(err, tc.want) {
				t.Fatalf("Sync = %v, want %v", err, tc.want)
			}
			if v := r.Status().Version; v != 5 {
				t.Errorf("version in force = %d, want the last good 5", v)
			}
			if res := r.Call(context.Background(), "getOrder", map[string]any{"order_id": "ord_0001"}); res.Err != nil && res.Err.Class == "TOOL_NOT_EXPOSED" {
				t.Errorf("the last good bundle's tool stopped working: %v", res.Err)
			}
			onDisk, _ := os.ReadFile(filepath.Join(dir, "runtime", "bundle.jws"))
			if !bytes.Equal(onDisk, good) {
				t.Error("the persisted bundle is no longer the last good one")
			}
		})
	}
}

func TestRestartServesPersistedBundleWithConsoleDown(t *testing.T) {
	k := testKey(t, 1)
	api, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 3, clk.Now(), 0, up.URL, getOrderTool(), createOrderTool(nil)))
	dir := t.TempDir()
	first := newRuntime(t, rtOpts{dir: dir, keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, first)
	con.Close() // the console is gone

	clk.Advance(time.Minute)
	second := newRuntime(t, rtOpts{dir: dir, keys: keySet(k), clock: clk, console: con.URL})
	if err := second.Sync(context.Background()); err == nil {
		t.Fatal("Sync against a stopped console succeeded")
	}
	st := second.Status()
	if st.Version != 3 || st.Tools != 2 || st.ETag != first.Status().ETag || !st.ConfirmedAt.Equal(t0) {
		t.Fatalf("restarted status = %+v, want v3 with 2 tools, the old ETag, confirmed at t0", st)
	}
	if second.InstanceID() != first.InstanceID() {
		t.Errorf("instance id changed across restart: %s → %s", first.InstanceID(), second.InstanceID())
	}
	res := second.Call(context.Background(), "createOrder", map[string]any{"body": map[string]any{
		"customer": "ada", "items": []any{map[string]any{"sku": "A-1", "quantity": 1, "unit_price_cents": 250}}}})
	if !res.OK || res.Status != 201 {
		t.Fatalf("call after restart: ok=%v status=%d err=%v", res.OK, res.Status, res.Err)
	}
	if n := api.Hits("POST /orders"); n != 1 {
		t.Errorf("upstream saw %d creates, want 1", n)
	}
}

func TestPersistedBundleRefusedWhenExpiredOrKeysChanged(t *testing.T) {
	k, other := testKey(t, 1), testKey(t, 2)
	_, up := upstream(t)
	tests := []struct {
		name  string
		ttl   time.Duration
		later time.Duration
		keys  *bundle.KeySet
	}{
		{"expired while stopped", time.Hour, 2 * time.Hour, keySet(k)},
		{"signed by a key no longer pinned", 0, time.Minute, keySet(other)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			con := newFakeConsole(t, keySet(k))
			clk := newClock()
			con.publish(signBundle(t, k, 1, clk.Now(), tc.ttl, up.URL, getOrderTool()))
			dir := t.TempDir()
			mustSync(t, newRuntime(t, rtOpts{dir: dir, keys: keySet(k), clock: clk, console: con.URL}))
			clk.Advance(tc.later)
			r := newRuntime(t, rtOpts{dir: dir, keys: tc.keys, clock: clk, console: con.URL})
			if v := r.Status().Version; v != 0 {
				t.Errorf("restarted runtime serves v%d, want no bundle", v)
			}
			res := r.Call(context.Background(), "getOrder", map[string]any{"order_id": "x"})
			if res.Err == nil || res.Err.Class != "TOOL_NOT_EXPOSED" || res.Attempts != 0 {
				t.Errorf("call without a bundle = %+v, want TOOL_NOT_EXPOSED with no attempt", res.Err)
			}
		})
	}
}

func TestTrustOnFirstUse(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
	dir := t.TempDir()

	if _, err := tryRuntime(t, rtOpts{dir: dir, clock: clk, console: con.URL}); !errors.Is(err, ErrNoTrustedKeys) {
		t.Fatalf("New without keys or TOFU = %v, want ErrNoTrustedKeys", err)
	}
	r := newRuntime(t, rtOpts{dir: dir, tofu: true, clock: clk, console: con.URL})
	mustSync(t, r)
	mustSync(t, r)
	if con.keyCalls != 1 || r.Status().Version != 1 {
		t.Fatalf("key fetches = %d (want 1), version %d", con.keyCalls, r.Status().Version)
	}
	// Keys trusted once stay pinned: a restart without the flag uses them,
	// and a console that later signs with another key is refused.
	again := newRuntime(t, rtOpts{dir: dir, clock: clk, console: con.URL})
	if again.Status().Version != 1 {
		t.Fatalf("restart with trusted keys serves v%d, want 1", again.Status().Version)
	}
	con.publish(signBundle(t, testKey(t, 9), 2, clk.Now(), 0, up.URL, getOrderTool()))
	if err := again.Sync(context.Background()); !errors.Is(err, bundle.ErrUnknownKey) {
		t.Errorf("bundle from a new key = %v, want ErrUnknownKey", err)
	}
	if con.keyCalls != 1 {
		t.Errorf("keys fetched again (%d): trust on first use must happen once", con.keyCalls)
	}
}

func TestSyncErrors(t *testing.T) {
	k := testKey(t, 1)
	tests := []struct {
		name  string
		token string
		setup func(*fakeConsole)
		want  error
	}{
		{"nothing published", testToken, func(*fakeConsole) {}, ErrNoBundle},
		{"wrong token", "wrong", func(*fakeConsole) {}, ErrTokenRefused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			con := newFakeConsole(t, keySet(k))
			tc.setup(con)
			r, err := New(Options{ConsoleURL: con.URL, Token: tc.token, DataDir: t.TempDir(), TrustedKeys: keySet(k)})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Sync(context.Background()); !errors.Is(err, tc.want) {
				t.Errorf("Sync = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no console", Options{Token: "t", DataDir: "d"}, "console URL"},
		{"ftp console", Options{ConsoleURL: "ftp://x", Token: "t", DataDir: "d"}, "console URL"},
		{"no token", Options{ConsoleURL: "http://x", DataDir: "d"}, "no runtime token"},
		{"no data dir", Options{ConsoleURL: "http://x", Token: "t"}, "no data directory"},
		{"jitter 1", Options{ConsoleURL: "http://x", Token: "t", DataDir: "d", PollJitter: 1}, "jitter"},
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

func TestPollIntervalJitter(t *testing.T) {
	for _, rnd := range []float64{0, 0.5, 0.999} {
		r := &Runtime{opts: Options{PollInterval: 10 * time.Second, PollJitter: 0.2, Rand: func() float64 { return rnd }}}
		got := r.nextInterval()
		if got < 8*time.Second || got > 12*time.Second {
			t.Errorf("rand %v: interval %s outside [8s, 12s]", rnd, got)
		}
	}
	lo := (&Runtime{opts: Options{PollInterval: 10 * time.Second, PollJitter: 0.2, Rand: func() float64 { return 0 }}}).nextInterval()
	hi := (&Runtime{opts: Options{PollInterval: 10 * time.Second, PollJitter: 0.2, Rand: func() float64 { return 0.999 }}}).nextInterval()
	if hi-lo < 3*time.Second {
		t.Errorf("jitter spread %s..%s is too narrow", lo, hi)
	}
}

// TestSameBytesWithoutETagKeepTheETag: a console (or a proxy in front of it)
// that answers 200 with the same bundle and no ETag confirms the bundle; the
// ETag in force is kept in memory and on disk, so the next fetch, after a
// restart too, is still conditional.
func TestSameBytesWithoutETagKeepTheETag(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	clk := newClock()
	signed := signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool())
	var fetches atomic.Int32
	con := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if fetches.Add(1) == 1 {
			w.Header().Set("ETag", `"v1"`)
		}
		w.Write(signed)
	}))
	t.Cleanup(con.Close)
	dir := t.TempDir()
	r := newRuntime(t, rtOpts{dir: dir, keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	clk.Advance(time.Minute)
	mustSync(t, r)

	if got := r.Status().ETag; got != `"v1"` {
		t.Errorf("ETag in force = %q, want %q", got, `"v1"`)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "runtime", "bundle.meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta bundleMeta
	if err := json.Unmarshal(raw, &meta); err != nil || meta.ETag != `"v1"` || !meta.ConfirmedAt.Equal(clk.Now()) {
		t.Errorf("persisted meta = %s (%v), want ETag %q confirmed now", raw, err, `"v1"`)
	}
}
