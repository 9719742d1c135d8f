package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unsafe"
)

// TestSwapReusesCompiledValidators: a new bundle that changes one tool's
// description and another tool's input schema compiles exactly one schema;
// every other tool keeps its compiled validator and its MCP definition
// (the same pointers), and MCP clients see the changed description.
func TestSwapReusesCompiledValidators(t *testing.T) {
	const n = 30
	k := testKey(t, 1)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	v1 := variedTools(n, "a")
	con.publish(signBundle(t, k, 1, clk.Now(), 0, "https://api.example.com", v1...))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	schemas := r.execOpts.Schemas
	if c := schemas.Compiles(); c != n {
		t.Fatalf("first bundle compiled %d schemas, want %d", c, n)
	}
	cs, changed := connect(t, r)
	before := r.snap.Load()

	v2 := variedTools(n, "a")
	v2[4].Description = "Get an item, changed text"
	v2[7].InputSchema = json.RawMessage(`{"type":"object","required":["item_id"],"properties":{"item_id":{"type":"string","maxLength":8},"expand":{},"limit":{}}}`)
	con.publish(signBundle(t, k, 2, clk.Now(), 0, "https://api.example.com", v2...))
	mustSync(t, r)
	if c := schemas.Compiles(); c != n+1 {
		t.Errorf("after a swap changing one schema %d schemas were compiled in all, want %d", c, n+1)
	}
	after := r.snap.Load()
	for i, tool := range v2 {
		sameListing := before.listings[tool.Name] == after.listings[tool.Name]
		if want := i != 4 && i != 7; sameListing != want {
			t.Errorf("tool %s: MCP definition reused = %v, want %v", tool.Name, sameListing, want)
		}
		// One copy of an unchanged schema in memory, not one per bundle.
		sharedSchema := unsafe.SliceData(before.tools[tool.Name].InputSchema) == unsafe.SliceData(after.tools[tool.Name].InputSchema)
		if want := i != 7; sharedSchema != want {
			t.Errorf("tool %s: input schema bytes shared with the previous bundle = %v, want %v", tool.Name, sharedSchema, want)
		}
	}
	waitChanged(t, changed)
	tools := listTools(t, cs)
	if got := tools[v2[4].Name].Description; got != "Get an item, changed text" {
		t.Errorf("tools/list description of the changed tool = %q", got)
	}
	res := r.Call(context.Background(), v2[7].Name, map[string]any{"item_id": strings.Repeat("x", 9)})
	if res.Err == nil || res.Err.Class != "INVALID_ARGUMENTS" {
		t.Errorf("the changed schema is not in force: %+v", res.Err)
	}
}
