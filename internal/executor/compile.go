package executor

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/toolgate/toolgate/internal/bundle"
)

// Withheld is a tool of the bundle that an executor does not run, and why.
type Withheld struct {
	Tool   string
	Reason string
}

// CompileTool is the executor's compile step for one tool of a bundle: the
// checks New runs before it serves a tool (origin and base path of its
// source, path template, parameter locations, reserved headers, the input
// schema compiled with its metaschema validation). nil means New would
// serve the tool; otherwise the error is the reason New would withhold it,
// naming the tool. src must be the source the tool names.
func CompileTool(src bundle.Source, t bundle.Tool) error {
	if t.Source != src.Name {
		return fmt.Errorf("tool %q: source %q is not in the bundle", t.Name, t.Source)
	}
	cs, err := compileSource(src)
	if err != nil {
		return fmt.Errorf("tool %q: %w", t.Name, err)
	}
	_, err = compileTool(t, cs, uuid.NewString, NewSchemas())
	return err
}

// compileTools fills e.tools from the bundle. A tool that cannot be run
// safely is withheld with its reason instead of failing the whole bundle:
// one bad tool must not take every other tool away from the agents. A tool
// whose definition (and source) equal those of a tool of prev is reused as
// it was compiled there, and input schemas come from schemas, so a bundle
// that changes one tool of thousands costs one compile.
func (e *Executor) compileTools(b *bundle.Bundle, prev *Executor, newKey func() string, schemas *Schemas) {
	e.sources = make(map[string]*source, len(b.Sources))
	srcErr := map[string]error{}
	for _, s := range b.Sources {
		if prev != nil {
			if ps, ok := prev.sources[s.Name]; ok && reflect.DeepEqual(ps.def, s) {
				e.sources[s.Name] = ps
				continue
			}
		}
		cs, err := compileSource(s)
		if err != nil {
			srcErr[s.Name] = err
			continue
		}
		e.sources[s.Name] = cs
	}
	used := make(map[schemaDigest]struct{}, len(b.Tools))
	for _, bt := range b.Tools {
		src, ok := e.sources[bt.Source]
		if !ok {
			err := srcErr[bt.Source]
			if err == nil {
				err = fmt.Errorf("source %q is not in the bundle", bt.Source)
			}
			e.withhold(bt.Name, fmt.Errorf("tool %q: %w", bt.Name, err))
			continue
		}
		t := prev.reusable(bt, src)
		if t != nil {
			next := *t // a copy: the previous executor may still run calls on t
			next.def, next.newKey, next.breaker = bt, newKey, nil
			t = &next
		} else {
			var err error
			if t, err = compileTool(bt, src, newKey, schemas); err != nil {
				e.withhold(bt.Name, err)
				continue
			}
		}
		e.tools[bt.Name] = t
		used[t.schemaDigest] = struct{}{}
	}
	schemas.keepOnly(used)
}

// reusable returns prev's compiled tool for bt when nothing it was compiled
// from changed: the same definition, of the same (reused) source.
func (prev *Executor) reusable(bt bundle.Tool, src *source) *tool {
	if prev == nil {
		return nil
	}
	t, ok := prev.tools[bt.Name]
	if !ok || t.source != src || !sameCompileInput(&t.def, &bt) {
		return nil
	}
	return t
}

// sameCompileInput reports whether two bundle tools have equal values in
// every field compileTool reads; then they compile to equal tools. The
// fields it skips (description, risk, reasons, annotations, approvals) are
// what agents and people read, not what the executor runs; a test keeps
// the two lists covering every field of bundle.Tool. Faster than
// reflect.DeepEqual of whole tools, which matters at 5,000 tools a swap.
func sameCompileInput(a, b *bundle.Tool) bool {
	return a.Name == b.Name && a.Source == b.Source && a.Method == b.Method && a.Path == b.Path &&
		slices.Equal(a.Params, b.Params) && bytes.Equal(a.InputSchema, b.InputSchema) &&
		(a.Body == b.Body || (a.Body != nil && b.Body != nil && *a.Body == *b.Body)) &&
		reflect.DeepEqual(a.Policy, b.Policy)
}

func (e *Executor) withhold(name string, err error) {
	if e.withheld == nil {
		e.withheld = map[string]string{}
	}
	e.withheld[name] = oneLine(err.Error())
	e.logger.Warn("tool withheld: it cannot be run safely", "tool", name, "reason", e.withheld[name])
}

// Withheld lists the tools of the bundle this executor does not run, by
// name, with the reason each could not be compiled. Calls to them fail with
// TOOL_NOT_EXPOSED and that reason.
func (e *Executor) Withheld() []Withheld {
	out := make([]Withheld, 0, len(e.withheld))
	for name, reason := range e.withheld {
		out = append(out, Withheld{Tool: name, Reason: reason})
	}
	slices.SortFunc(out, func(a, b Withheld) int { return strings.Compare(a.Tool, b.Tool) })
	return out
}

// notExposed is the error of a call to a tool this executor does not run.
func (e *Executor) notExposed(name string) *Error {
	if reason, ok := e.withheld[name]; ok {
		return newError(ClassToolNotExposed, false, 0,
			fmt.Sprintf("tool %q is withheld by this runtime: it cannot be run safely (%s)", name, reason))
	}
	return newError(ClassToolNotExposed, false, 0, fmt.Sprintf("tool %q is not exposed by the current bundle", name))
}
