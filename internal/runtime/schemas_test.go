package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
)

// TestV1RuntimeRefusesV2AndKeepsLastGood: a runtime that reads only v1,
// as one from before toolgate.bundle/v2, says nothing about schemas when
// it fetches, refuses a real v2 bundle (a tool scoped to a group) for its
// schema, keeps serving its last good bundle and reports the refusal; a
// runtime of this release lists both schemas and takes the v2 bundle.
func TestV1RuntimeRefusesV2AndKeepsLastGood(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	clk := newClock()
	con := newFakeConsole(t, keySet(k))
	con.publish(signBundle(t, k, 5, clk.Now(), 0, up.URL, getOrderTool()))
	old := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL, schemas: []string{bundle.SchemaV1}})
	mustSync(t, old)
	scoped := getOrderTool()
	scoped.Policy.Groups = []string{"support"}
	con.publish(signBundle(t, k, 6, clk.Now(), 0, up.URL, scoped))
	err := old.Sync(t.Context())
	if !errors.Is(err, bundle.ErrUnknownSchema) || !strings.Contains(err.Error(), `"toolgate.bundle/v2" and this verifier knows toolgate.bundle/v1;`) {
		t.Fatalf("Sync = %v, want %v", err, bundle.ErrUnknownSchema)
	}
	if v := old.Status().Version; v != 5 {
		t.Errorf("version in force = %d, want the last good 5", v)
	}
	if !strings.Contains(old.refusalReport(), "toolgate.bundle/v2") {
		t.Errorf("the refusal is not reported: %q", old.refusalReport())
	}
	cur := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, cur)
	if s := cur.snap.Load(); s.bundle.Version != 6 || s.bundle.Schema != bundle.SchemaV2 || s.bundle.Tools[0].Policy.Groups[0] != "support" {
		t.Errorf("this release runs %s v%d %+v, want the v2 bundle with its groups", s.bundle.Schema, s.bundle.Version, s.bundle.Tools[0].Policy)
	}
	sent := map[string]bool{}
	for _, h := range con.requests() {
		sent[h.Get(HeaderBundleSchemas)] = true
	}
	if !sent[""] || !sent[bundle.SchemaV1+", "+bundle.SchemaV2] || len(sent) != 2 {
		t.Errorf("schemas sent %v, want none (the v1 runtime) and both (this release)", sent)
	}
}

// TestBundleSchemasOption: a runtime refuses a schema list it cannot read.
func TestBundleSchemasOption(t *testing.T) {
	k := testKey(t, 1)
	for _, schemas := range [][]string{{}, {"toolgate.bundle/v3"}, {bundle.SchemaV1, "v2"}} {
		if _, err := tryRuntime(t, rtOpts{keys: keySet(k), console: "http://127.0.0.1:1", schemas: schemas}); err == nil ||
			!strings.Contains(err.Error(), "bundle schemas") {
			t.Errorf("schemas %q: New = %v, want a bundle schemas error", schemas, err)
		}
	}
}
