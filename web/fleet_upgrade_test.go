package web

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/runtime"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// fleetApp is a console with three exposed tools — one plain, one scoped
// to a group, one with a condition — published as toolgate.bundle/v2,
// served over HTTP to real runtimes.
type fleetApp struct {
	*testApp
	url, token string
	published  *store.BundleRecord
}

func newFleetApp(t *testing.T) *fleetApp {
	t.Helper()
	a := newPublishApp(t)
	a.exposeTool("list_orders")
	storetest.AddV2Tools(t, a.db)
	f := &fleetApp{testApp: a, token: a.token("fleet"), published: a.publish("groups and conditions")}
	srv := httptest.NewServer(a.srv)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// runtimeOn starts a runtime of this console in dataDir reading schemas
// (nil: every schema this release reads) and syncs it once.
func (f *fleetApp) runtimeOn(t *testing.T, dataDir, name string, schemas []string) *runtime.Runtime {
	t.Helper()
	keys := f.keySet()
	r, err := runtime.New(runtime.Options{ConsoleURL: f.url, Token: f.token, Name: name, DataDir: dataDir,
		TrustedKeys: &keys, BundleSchemas: schemas, Executor: executor.Options{AllowInsecureCredentials: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Sync(context.Background()); err != nil {
		t.Fatalf("%s: Sync: %v", name, err)
	}
	return r
}

// inForce is the bundle a runtime keeps as its last good one, exactly as
// it received it, verified again with the console's keys.
func (f *fleetApp) inForce(t *testing.T, dataDir string) *bundle.Bundle {
	t.Helper()
	signed, err := os.ReadFile(filepath.Join(dataDir, "runtime", "bundle.jws"))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := bundle.Verify(signed, f.keySet(), bundle.VerifyOptions{Now: time.Now()})
	if err != nil {
		t.Fatalf("the runtime's bundle does not verify: %v", err)
	}
	return b
}

// listed are the tools an MCP client sees on r.
func listed(t *testing.T, r *runtime.Runtime) []string {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := r.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	var out []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tool.Name)
	}
	slices.Sort(out)
	return out
}

// TestFleetOfV1AndV2Runtimes: in one fleet with a v2 console, a runtime
// that reads only v1 (as one from before v2: it sends no schemas) gets
// the version's v1 form and never lists or calls the tool scoped to a
// group or the one with a condition; a v2 runtime gets the version as
// published, policies intact; both are the same version, every tool with
// the same digest, both signatures verify. The old runtime, upgraded in
// place, takes the v2 form of the version it runs.
func TestFleetOfV1AndV2Runtimes(t *testing.T) {
	f := newFleetApp(t)
	oldDir, newDir := t.TempDir(), t.TempDir()
	old := f.runtimeOn(t, oldDir, "old", []string{bundle.SchemaV1})
	cur := f.runtimeOn(t, newDir, "new", nil)

	if got := listed(t, old); !slices.Equal(got, []string{"list_orders"}) {
		t.Errorf("the v1 runtime lists %v, want list_orders only", got)
	}
	for _, name := range []string{"support_orders", "refund"} {
		if res := old.Call(context.Background(), name, map[string]any{}); res.Err == nil || res.Err.Class != executor.ClassToolNotExposed || res.Attempts != 0 {
			t.Errorf("the v1 runtime called %s: %+v", name, res)
		}
	}
	if got := cur.Status().Tools; got != 3 {
		t.Errorf("the v2 runtime has %d tools, want 3", got)
	}
	v1, v2 := f.inForce(t, oldDir), f.inForce(t, newDir)
	if v1.Schema != bundle.SchemaV1 || v2.Schema != bundle.SchemaV2 || v1.Version != f.published.Version || v2.Version != f.published.Version {
		t.Fatalf("runtimes run %s v%d and %s v%d, want v%d as v1 and v2", v1.Schema, v1.Version, v2.Schema, v2.Version, f.published.Version)
	}
	policies := map[string]policy.Policy{}
	for _, tool := range v2.Tools {
		policies[tool.Name] = tool.Policy
	}
	if g := policies["support_orders"].Groups; !slices.Equal(g, []string{"support"}) {
		t.Errorf("the v2 runtime's support_orders has groups %v", g)
	}
	if c := policies["refund"].Conditions; len(c) != 1 || c[0].Expr != "false" || c[0].Effect != policy.ConditionDeny {
		t.Errorf("the v2 runtime's refund has conditions %+v", c)
	}
	if len(v1.Tools) != 1 || v1.Tools[0].Digest != digestOf(v2, "list_orders") {
		t.Errorf("the v1 form's tools %+v differ from the v2 bundle's", v1.Tools)
	}

	f.runtimesPage(t,
		in(`[data-testid="v1-form"]`, hasText("its v1 form, which leaves out 2 tools whose policy they cannot enforce"),
			hasText("1 instance on this page reads only v1: upgrade it")),
		count(`[data-testid="v1-only"]`, 1),
		in(`[data-testid="v1-only"]`, hasText("gets the v1 form: 2 tools left out")),
		count(`[data-testid="reads"]`, 2))

	upgraded := f.runtimeOn(t, oldDir, "old", nil) // the same data directory, this release
	if got := f.inForce(t, oldDir); got.Schema != bundle.SchemaV2 || got.Version != f.published.Version {
		t.Errorf("the upgraded runtime runs %s v%d, want the v2 form of v%d", got.Schema, got.Version, f.published.Version)
	}
	if got := upgraded.Status().Tools; got != 3 {
		t.Errorf("the upgraded runtime has %d tools, want 3", got)
	}
	f.runtimesPage(t, in(`[data-testid="v1-form"]`, hasText("leaves out 2 tools")), none(`[data-testid="v1-only"]`),
		in(`[data-testid="runtime-row"] [data-testid="reads"]`, hasText("v1, v2")))
}

// runtimesPage checks the Runtimes page once the fleet's fetches are
// written.
func (f *fleetApp) runtimesPage(t *testing.T, checks ...check) {
	t.Helper()
	f.api.Flush(t.Context())
	page := f.do(request{method: "GET", path: "/runtimes", cookie: f.sessionCookie("viewer")})
	wantStatus(t, page, 200)
	wantHTML(t, page.Body.String(), checks...)
}

func digestOf(b *bundle.Bundle, name string) string {
	for _, t := range b.Tools {
		if t.Name == name {
			return t.Digest
		}
	}
	return ""
}
