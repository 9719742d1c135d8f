package oci_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"oras.land/oras-go/v2/registry/remote"

	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/testing/ocitest"
)

// TestRepairLatestRelistsAfterItsOwnWrite: a repair lists the tags, and a
// newer version's pusher finishes before the repair's write lands, so that
// write puts latest back below the newest. The repair must list again
// after writing and move latest up once more.
func TestRepairLatestRelistsAfterItsOwnWrite(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{})
	ctx := t.Context()
	direct := client(t, reg.Target("bundles"), oci.Credentials{})
	for _, v := range []int64{1, 4} {
		if _, err := direct.Push(ctx, artifact(v)); err != nil {
			t.Fatal(err)
		}
	}
	// v4 is tagged but its pusher has not moved latest yet: latest is v1.
	repo, err := remote.NewRepository(reg.Addr + "/bundles")
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	v1, err := repo.Resolve(ctx, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(ctx, v1, oci.TagLatest); err != nil {
		t.Fatal(err)
	}

	// The v3 pusher goes through a proxy that holds its second write to
	// latest (the repair's, pointing at v4) until v5 has been pushed in
	// full by another pusher.
	up, _ := url.Parse("http://" + reg.Addr)
	proxy := httputil.NewSingleHostReverseProxy(up)
	var (
		mu     sync.Mutex
		writes int
	)
	hold := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/manifests/"+oci.TagLatest) {
			mu.Lock()
			writes++
			n := writes
			mu.Unlock()
			if n == 2 {
				if _, err := direct.Push(ctx, artifact(5)); err != nil {
					t.Error(err)
				}
			}
		}
		proxy.ServeHTTP(w, r)
	})
	px := httptest.NewServer(hold)
	t.Cleanup(px.Close)
	slow := client(t, oci.Target{Host: strings.TrimPrefix(px.URL, "http://"), Repository: "bundles"}, oci.Credentials{})
	p, err := slow.Push(ctx, artifact(3))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	n := writes
	mu.Unlock()
	if n < 2 {
		t.Fatalf("the v3 push wrote latest %d times; the test needs its repair's write", n)
	}
	if v, _, err := direct.LatestVersion(ctx); err != nil || v != 5 || p.LatestVersion != 5 {
		t.Fatalf("latest = v%d (push says v%d), %v; want v5", v, p.LatestVersion, err)
	}
}
