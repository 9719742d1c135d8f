package executor

import (
	"context"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
)

// TestSwapReusesCompiledTools: building the next executor with Previous
// and a shared Schemas compiles only what changed. An unchanged tool is
// taken over (same compiled schema, same parsed template), a tool whose
// schema bytes did not change gets the cached validator whatever else
// changed, equal schemas of two tools compile once, and the cache keeps
// only the schemas of the newest executor.
func TestSwapReusesCompiledTools(t *testing.T) {
	up := newUpstream(t, status(200))
	id := bundle.Param{Name: "id", In: "path", Arg: "id", Required: true}
	a := testTool("a", "GET", "/a/{id}", retrying(1), id)
	b := testTool("b", "GET", "/b/{id}", retrying(1), id) // same schema bytes as a
	c := testTool("c", "GET", "/c", retrying(1))
	c.InputSchema = []byte(`{"type":"object","properties":{"q":{"type":"string","maxLength":3}}}`)
	c.Params = []bundle.Param{{Name: "q", In: "query", Arg: "q"}}
	schemas := NewSchemas()
	first := newExecutor(t, testBundle(up.URL, a, b, c), Options{Schemas: schemas})
	if n := schemas.Compiles(); n != 2 {
		t.Fatalf("first bundle compiled %d schemas, want 2 (a and b share theirs)", n)
	}
	if first.tools["a"].schema != first.tools["b"].schema {
		t.Fatal("two tools with equal schemas got two validators")
	}

	b2 := b
	b2.Path = "/b2/{id}"
	c2 := c
	c2.Description = "changed text"
	d := testTool("d", "GET", "/d", retrying(1))
	d.InputSchema = []byte(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	d.Params = []bundle.Param{{Name: "n", In: "query", Arg: "n"}}
	second := newExecutor(t, testBundle(up.URL, a, b2, c2, d), Options{Schemas: schemas, Previous: first})
	if n := schemas.Compiles(); n != 3 {
		t.Fatalf("after the swap %d schemas were compiled in all, want 3 (only d's is new)", n)
	}
	for _, name := range []string{"a", "b", "c"} {
		if second.tools[name].schema != first.tools[name].schema {
			t.Errorf("tool %s: the swap compiled its unchanged schema again", name)
		}
	}
	if second.tools["a"] == first.tools["a"] || &second.tools["a"].path[0] != &first.tools["a"].path[0] {
		t.Error("unchanged tool a: want a copy of the old executor's compiled tool sharing its parsed template")
	}
	if &second.tools["b"].path[0] == &first.tools["b"].path[0] {
		t.Error("tool b changed its path but kept the old compiled template")
	}
	wantClass(t, second.Call(context.Background(), "b", map[string]any{"id": "1"}), "")
	if got := up.Requests()[0].URL.Path; got != "/b2/1" {
		t.Errorf("tool b sent to %q, want /b2/1", got)
	}
	wantClass(t, second.Call(context.Background(), "c", map[string]any{"q": "long"}), ClassInvalidArguments)
	wantClass(t, first.Call(context.Background(), "a", map[string]any{"id": "1"}), "")

	third := newExecutor(t, testBundle(up.URL, a, b2), Options{Schemas: schemas, Previous: second})
	if n := schemas.Len(); n != 1 {
		t.Errorf("cache holds %d schemas after a bundle using 1, want 1", n)
	}
	if third.tools["a"].schema != first.tools["a"].schema || schemas.Compiles() != 3 {
		t.Error("the third bundle compiled a's schema again")
	}
}

// TestSwapRecompilesOnSourceChange: a tool of a source whose origin changed
// is compiled again, so it never sends to the old origin.
func TestSwapRecompilesOnSourceChange(t *testing.T) {
	oldUp, newUp := newUpstream(t, status(200)), newUpstream(t, status(200))
	tool := testTool("a", "GET", "/a", retrying(1))
	first := newExecutor(t, testBundle(oldUp.URL, tool), Options{})
	second := newExecutor(t, testBundle(newUp.URL, tool), Options{Previous: first})
	wantClass(t, second.Call(context.Background(), "a", nil), "")
	if oldUp.count.Load() != 0 || newUp.count.Load() != 1 {
		t.Fatalf("requests: old origin %d, new origin %d; want 0 and 1", oldUp.count.Load(), newUp.count.Load())
	}
}
