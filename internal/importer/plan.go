// Package importer decides what importing an API description into an
// existing source changes: which operations are added, restored, removed or
// changed, which tool names new operations get, which class is in force
// afterwards, which exposed tools are suspended, and (PinDefinitions, R13)
// which tools' definitions agents read change and what that voids or asks
// the importer to confirm. It is pure (no SQL):
// the store reads the stored tools, asks Build for a Plan and applies it in
// one transaction.
package importer

import (
	"sort"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// Kind is what an import does to one operation.
type Kind string

// The kinds of change, in the order a diff lists them.
const (
	Added     Kind = "added"     // new in the document
	Restored  Kind = "restored"  // removed earlier, back in the document
	Changed   Kind = "changed"   // method, path, parameters, security or risk class differ
	Removed   Kind = "removed"   // no longer in the document: kept, marked removed, unexposed
	Unchanged Kind = "unchanged" // same identity and the same compared fields
)

// kindOrder sorts changes the way a diff page lists them.
var kindOrder = map[Kind]int{Added: 0, Restored: 1, Changed: 2, Removed: 3, Unchanged: 4}

// Stored is one tool of the source as the database holds it.
type Stored struct {
	Name  string
	OpKey string // METHOD + " " + path key
	// Op is the stored operation (method, path, parameters, security, ...).
	Op            openapi.Operation
	DetectedClass risk.Class
	// Class is the class in force; Overridden says an admin or an approved
	// change request set it rather than the risk engine.
	Class      risk.Class
	Overridden bool
	Exposed    bool
	Removed    bool
}

// Change is what the import does to one operation.
type Change struct {
	Kind   Kind
	Tool   string
	OpKey  string
	Method string
	Path   string
	// Op and Assessment are the operation as the new document has it;
	// nil/zero for Removed.
	Op         *openapi.Operation
	Assessment risk.Assessment
	// Before is the stored tool; nil for Added.
	Before *Stored
	// Fields lists the compared fields that differ (Changed only).
	Fields []policy.FieldChange
	// Class is the class in force after the import, and KeepOverride says
	// whether the stored override still applies.
	Class        risk.Class
	KeepOverride bool
	// Suspend, when not "", turns the tool's exposure off for this reason.
	Suspend string
	// Definition is set when what agents read or send through the tool
	// changes (R13, see PinDefinitions); VoidPending is then the reason its
	// pending change requests become void, VoidApproval says its approved
	// change requests are void too, and Confirm that the person importing must
	// confirm the new definition of an exposed tool before it applies.
	Definition   *DefinitionChange
	VoidPending  string
	VoidApproval bool
	Confirm      bool
}

// Plan is every change an import makes, sorted by kind and tool name.
type Plan struct {
	Changes []Change
}

// Count returns how many changes are of kind k.
func (p *Plan) Count(k Kind) int {
	n := 0
	for _, c := range p.Changes {
		if c.Kind == k {
			n++
		}
	}
	return n
}

// Of returns the changes of kind k, in plan order.
func (p *Plan) Of(k Kind) []Change {
	var out []Change
	for _, c := range p.Changes {
		if c.Kind == k {
			out = append(out, c)
		}
	}
	return out
}

// ToConfirm returns the changes the person importing must confirm: new
// definitions of tools exposed without an approval (R13).
func (p *Plan) ToConfirm() []Change {
	var out []Change
	for _, c := range p.Changes {
		if c.Confirm {
			out = append(out, c)
		}
	}
	return out
}

// Suspended returns the changes that turn an exposed tool off.
func (p *Plan) Suspended() []Change {
	var out []Change
	for _, c := range p.Changes {
		if c.Suspend != "" {
			out = append(out, c)
		}
	}
	return out
}

// Empty reports whether the import changes nothing a person would review.
func (p *Plan) Empty() bool { return len(p.Changes) == p.Count(Unchanged) }

// Build compares doc with the stored tools of source and plans the import.
// taken reports whether a tool name is used anywhere in the project
// (including by stored tools of this source; Build knows those are its own).
// Classification happens here, so the plan is everything the store needs.
func Build(source string, doc *openapi.Document, stored []Stored, taken func(string) bool) *Plan {
	ops := make([]*openapi.Operation, len(doc.Operations))
	for i := range doc.Operations {
		ops[i] = &doc.Operations[i]
	}
	// Document order must not influence names or matching.
	sort.Slice(ops, func(i, j int) bool { return OpKey(ops[i]) < OpKey(ops[j]) })

	m := match(ops, stored)
	own := map[string]bool{}
	for _, s := range stored {
		own[s.Name] = true
	}
	used := map[string]bool{}
	isTaken := func(n string) bool { return used[n] || own[n] || taken(n) }

	plan := &Plan{}
	for _, op := range ops {
		a := risk.Classify(op)
		s, ok := m.byOp[op]
		if !ok {
			name := Name(source, op.Tool, OpKey(op), isTaken)
			used[name] = true
			plan.Changes = append(plan.Changes, Change{Kind: Added, Tool: name, OpKey: OpKey(op),
				Method: op.Method, Path: op.Path, Op: op, Assessment: a, Class: a.Class})
			continue
		}
		plan.Changes = append(plan.Changes, compare(s, op, a))
	}
	for i := range stored {
		s := &stored[i]
		if m.matched[s] || s.Removed {
			continue
		}
		c := Change{Kind: Removed, Tool: s.Name, OpKey: s.OpKey, Method: s.Op.Method, Path: s.Op.Path,
			Before: s, Class: s.Class, KeepOverride: true}
		if s.Exposed {
			c.Suspend = "The operation is no longer in the document."
		}
		plan.Changes = append(plan.Changes, c)
	}
	sort.SliceStable(plan.Changes, func(i, j int) bool {
		a, b := plan.Changes[i], plan.Changes[j]
		if kindOrder[a.Kind] != kindOrder[b.Kind] {
			return kindOrder[a.Kind] < kindOrder[b.Kind]
		}
		return a.Tool < b.Tool
	})
	return plan
}

// OpKey is an operation's identity inside its source: method and the path
// key exactly as written (Box's #fragment variants stay apart).
func OpKey(op *openapi.Operation) string { return op.Method + " " + op.PathKey }

// matching pairs new operations with stored tools.
type matching struct {
	byOp    map[*openapi.Operation]*Stored
	matched map[*Stored]bool
}

// match pairs operations with stored tools by op key first. Operations left
// over are paired by operationId when the document declares one and it is
// unique among the leftovers on both sides: that is an operation whose
// method or path moved, and it keeps its tool name and policy.
func match(ops []*openapi.Operation, stored []Stored) matching {
	m := matching{byOp: map[*openapi.Operation]*Stored{}, matched: map[*Stored]bool{}}
	byKey := map[string]*Stored{}
	for i := range stored {
		byKey[stored[i].OpKey] = &stored[i]
	}
	var rest []*openapi.Operation
	for _, op := range ops {
		if s, ok := byKey[OpKey(op)]; ok {
			m.byOp[op], m.matched[s] = s, true
			continue
		}
		rest = append(rest, op)
	}
	newByID := map[string][]*openapi.Operation{}
	for _, op := range rest {
		if !op.OperationIDDerived && op.OperationID != "" {
			newByID[op.OperationID] = append(newByID[op.OperationID], op)
		}
	}
	oldByID := map[string][]*Stored{}
	for i := range stored {
		s := &stored[i]
		if !m.matched[s] && !s.Removed && !s.Op.OperationIDDerived && s.Op.OperationID != "" {
			oldByID[s.Op.OperationID] = append(oldByID[s.Op.OperationID], s)
		}
	}
	for id, news := range newByID {
		olds := oldByID[id]
		if len(news) == 1 && len(olds) == 1 {
			m.byOp[news[0]], m.matched[olds[0]] = olds[0], true
		}
	}
	return m
}

// compare plans an operation that matches a stored tool.
func compare(s *Stored, op *openapi.Operation, a risk.Assessment) Change {
	c := Change{Kind: Unchanged, Tool: s.Name, OpKey: OpKey(op), Method: op.Method, Path: op.Path,
		Op: op, Assessment: a, Before: s}
	c.Fields = diffFields(s, op, a)
	c.Class, c.KeepOverride = classInForce(s, a.Class)
	moved := s.Op.Method != op.Method || s.Op.Path != op.Path || s.OpKey != OpKey(op)
	switch {
	case s.Removed:
		c.Kind = Restored
	case len(c.Fields) > 0 || moved:
		c.Kind = Changed
	}
	if s.Exposed && !s.Removed {
		switch {
		case moved:
			c.Suspend = "The operation moved to " + op.Method + " " + op.PathKey + " on re-import; review it before exposing it again."
		case c.Class > s.Class:
			c.Suspend = "The risk class rose from " + s.Class.String() + " to " + c.Class.String() + " on re-import; review it before exposing it again."
		}
	}
	return c
}

// classInForce decides the class after a re-import. While the risk engine's
// verdict is unchanged, the stored class stays, override included. When it
// changes, a raise by an admin survives only as a floor (the class never
// drops below what the admin set), and a lowering approved for the old
// verdict is void: it was approved for a different assessment.
func classInForce(s *Stored, detected risk.Class) (risk.Class, bool) {
	if detected == s.DetectedClass {
		return s.Class, s.Overridden
	}
	if s.Overridden && s.Class > s.DetectedClass {
		if s.Class > detected {
			return s.Class, true
		}
		return detected, false
	}
	return detected, false
}
