package executor

import (
	"context"
	"reflect"
	"slices"
	"sync"
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

// TestSameCompileInputCoversEveryField: every field of bundle.Tool is
// either compared by sameCompileInput or listed here as one compileTool
// does not read. A new field fails this test until someone decides which.
func TestSameCompileInputCoversEveryField(t *testing.T) {
	compared := []string{"Name", "Source", "Method", "Path", "Params", "InputSchema", "Body", "Policy"}
	notRead := []string{"Description", "Risk", "Reasons", "Annotations", "Approvals", "Digest"}
	typ := reflect.TypeFor[bundle.Tool]()
	var fields []string
	for i := range typ.NumField() {
		fields = append(fields, typ.Field(i).Name)
	}
	all := append(append([]string(nil), compared...), notRead...)
	slices.Sort(all)
	slices.Sort(fields)
	if !slices.Equal(all, fields) {
		t.Fatalf("bundle.Tool fields %v; sameCompileInput compares %v and skips %v: classify every field", fields, compared, notRead)
	}
	base := testTool("a", "POST", "/a/{id}", retrying(1), bundle.Param{Name: "id", In: "path", Arg: "id"})
	base.Body = &bundle.Body{Arg: "body", MediaType: "application/json"}
	changes := map[string]func(*bundle.Tool){
		"Name":        func(t *bundle.Tool) { t.Name = "b" },
		"Source":      func(t *bundle.Tool) { t.Source = "other" },
		"Method":      func(t *bundle.Tool) { t.Method = "PUT" },
		"Path":        func(t *bundle.Tool) { t.Path = "/b/{id}" },
		"Params":      func(t *bundle.Tool) { t.Params = []bundle.Param{{Name: "id", In: "path", Arg: "id", Required: true}} },
		"InputSchema": func(t *bundle.Tool) { t.InputSchema = []byte(`{"type":"object"}`) },
		"Body":        func(t *bundle.Tool) { t.Body = &bundle.Body{Arg: "body", MediaType: "text/plain"} },
		"Policy":      func(t *bundle.Tool) { t.Policy.Retry.RetryOn = []int{503} },
	}
	for _, name := range compared {
		changed := base
		changed.Body = &bundle.Body{Arg: "body", MediaType: "application/json"}
		changes[name](&changed)
		if sameCompileInput(&base, &changed) {
			t.Errorf("a change of %s is not seen", name)
		}
	}
	same := base
	same.Body = &bundle.Body{Arg: "body", MediaType: "application/json"}
	same.Params = append([]bundle.Param(nil), base.Params...)
	same.Description = "other text"
	if !sameCompileInput(&base, &same) {
		t.Error("equal compile inputs in other memory are not the same")
	}
}

// TestValidatorCompiledOnFirstCall: building an executor checks a schema
// but keeps no compiled validator until the tool is called; the first call
// compiles it once, for every executor and every concurrent caller, and it
// validates from then on.
func TestValidatorCompiledOnFirstCall(t *testing.T) {
	up := newUpstream(t, status(200))
	tool := testTool("a", "GET", "/a", retrying(1), bundle.Param{Name: "q", In: "query", Arg: "q"})
	tool.InputSchema = []byte(`{"type":"object","properties":{"q":{"type":"string","maxLength":2}}}`)
	schemas := NewSchemas()
	first := newExecutor(t, testBundle(up.URL, tool), Options{Schemas: schemas})
	second := newExecutor(t, testBundle(up.URL, tool), Options{Schemas: schemas, Previous: first})
	v := first.tools["a"].schema
	if v.sch != nil || second.tools["a"].schema != v {
		t.Fatal("the validator was compiled before any call, or not shared")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { wantClass(t, second.Call(context.Background(), "a", map[string]any{"q": "ok"}), "") })
	}
	wg.Wait()
	if v.sch == nil {
		t.Fatal("no compiled validator after calls")
	}
	compiled := v.sch
	wantClass(t, first.Call(context.Background(), "a", map[string]any{"q": "too long"}), ClassInvalidArguments)
	if v.sch != compiled {
		t.Error("the validator was compiled again")
	}
}
