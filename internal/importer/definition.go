package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// ToolInput is the bundle input of one tool: the operation as agents will
// see it (description, parameters, body, input schema) with the given
// assessment and STORED policy. Publishing, change requests and re-import
// planning all build tools with it, so the definition digest they compare
// is the one a bundle carries.
func ToolInput(name, source string, op openapi.Operation, a risk.Assessment, p policy.Policy) bundle.ToolInput {
	t := bundle.ToolInput{Name: name, Source: source, Method: op.Method, Path: op.Path,
		Description: Description(op), InputSchema: op.InputSchema, Assessment: a, Policy: p}
	if len(t.InputSchema) == 0 {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	for _, prm := range op.Parameters {
		t.Params = append(t.Params, bundle.Param{Name: prm.Name, In: prm.In, Arg: prm.Arg, Required: prm.Required})
	}
	if rb := op.RequestBody; rb != nil {
		t.Body = &bundle.Body{Arg: rb.Arg, Required: rb.Required, MediaType: mediaType(rb.MediaTypes)}
	}
	return t
}

// Description is the tool description agents read: the summary, then the
// longer description when it adds something.
func Description(op openapi.Operation) string {
	sum, desc := strings.TrimSpace(op.Summary), strings.TrimSpace(op.Description)
	switch {
	case desc == "" || desc == sum:
		return sum
	case sum == "":
		return desc
	}
	return sum + "\n\n" + desc
}

// mediaType picks the body's media type: the first JSON one, else the first.
func mediaType(types []string) string {
	for _, t := range types {
		if strings.Contains(t, "json") {
			return t
		}
	}
	if len(types) > 0 {
		return types[0]
	}
	return "application/json"
}

// DefinitionChange is how a re-import changes what agents read or send
// through a tool (R13): both digests, the parts that differ, and line
// diffs of the description and the input schema for the preview.
type DefinitionChange struct {
	OldDigest   string   `json:"old_digest"`
	NewDigest   string   `json:"new_digest"`
	Parts       []string `json:"parts"`
	Description TextDiff `json:"-"`
	InputSchema TextDiff `json:"-"`
}

// Summary names the changed parts: "description, input schema".
func (d *DefinitionChange) Summary() string { return strings.Join(d.Parts, ", ") }

// PinInput is what PinDefinitions needs besides the plan: the source as it
// is stored and as it will be (origin, base path), the stored policy of
// every tool of the source, and which tools an approved change request
// covers (of any kind: exposure, mutation retry, a lowered class).
type PinInput struct {
	Source   string
	Old, New bundle.Source
	Policies map[string]policy.Policy
	Approved map[string]bool
}

// The sentences a definition change leaves on a tool.
const (
	suspendDefinition = "What agents read changed on re-import (%s); a security approver must approve its exposure again."
	voidDefinition    = "The tool's definition changed on re-import (%s) after the request was made."
)

// PinDefinitions compares each re-imported tool's definition digest before
// and after the import (R13) and records it on the plan:
//   - a tool whose digest changes is Changed, with the readable diff;
//   - every approval that covered it is void (VoidApproval), whatever part
//     moved (description, schema, parameters, method, path, origin, base
//     path) and whether or not it is exposed: it approved a definition
//     agents no longer get, and a rollback must not sign it again (R14);
//   - if it is exposed and DESTRUCTIVE or PRIVILEGED (after the import), or
//     an approval covered it, its exposure is suspended (unless the plan
//     suspends it already, for a move or a risen class) until it is
//     approved again;
//   - if it is exposed without needing approval (READ, WRITE), the person
//     importing must confirm the new definition (Confirm);
//   - pending change requests on it become void (VoidPending).
func PinDefinitions(p *Plan, in PinInput) error {
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Before == nil || c.Op == nil {
			continue
		}
		d, err := definitionChange(c, in)
		if err != nil {
			return err
		}
		if d == nil {
			continue
		}
		if lowered(c) {
			// A lowering was approved for the old definition (R10, R13):
			// it does not carry over to text nobody approved. The class
			// returns to the engine's verdict, which then decides whether
			// exposure needs approval again.
			c.Class, c.KeepOverride = c.Assessment.Class, false
			if d, err = definitionChange(c, in); err != nil {
				return err
			}
		}
		c.Definition = d
		c.VoidPending = fmt.Sprintf(voidDefinition, d.Summary())
		if c.Kind == Unchanged {
			c.Kind = Changed
		}
		c.VoidApproval = in.Approved[c.Tool]
		if !c.Before.Exposed || c.Before.Removed || c.Suspend != "" {
			continue
		}
		if c.Class >= risk.Destructive || in.Approved[c.Tool] {
			c.Suspend = fmt.Sprintf(suspendDefinition, d.Summary())
			continue
		}
		c.Confirm = true
	}
	return nil
}

// lowered reports whether c keeps a stored override below the engine's
// verdict, i.e. an approved lowering of the risk class.
func lowered(c *Change) bool {
	return c.KeepOverride && c.Before.Overridden && c.Class < c.Assessment.Class
}

// definitionChange compares one tool's definition before and after, or
// returns nil when its digest is the same.
func definitionChange(c *Change, in PinInput) (*DefinitionChange, error) {
	pol := in.Policies[c.Tool]
	oldIn := ToolInput(c.Tool, in.Source, c.Before.Op, risk.Assessment{Class: c.Before.Class}, pol)
	newIn := ToolInput(c.Tool, in.Source, *c.Op, risk.Assessment{Class: c.Class}, pol)
	oldT, err := bundle.BuildTool(oldIn, in.Old)
	if err != nil {
		return nil, err
	}
	newT, err := bundle.BuildTool(newIn, in.New)
	if err != nil {
		return nil, err
	}
	if oldT.Digest == newT.Digest {
		return nil, nil
	}
	d := &DefinitionChange{OldDigest: oldT.Digest, NewDigest: newT.Digest,
		Description: LineDiff(oldT.Description, newT.Description),
		InputSchema: LineDiff(PrettyJSON(oldT.InputSchema), PrettyJSON(newT.InputSchema))}
	add := func(part string, differs bool) {
		if differs {
			d.Parts = append(d.Parts, part)
		}
	}
	add("description", oldT.Description != newT.Description)
	add("input schema", d.InputSchema.Changed())
	add("parameters", !reflect.DeepEqual(oldT.Params, newT.Params) || !reflect.DeepEqual(oldT.Body, newT.Body))
	add("method or path", oldT.Method != newT.Method || oldT.Path != newT.Path)
	add("origin", in.Old.Origin != in.New.Origin || in.Old.BasePath != in.New.BasePath)
	add("annotations", oldT.Annotations != newT.Annotations)
	if len(d.Parts) == 0 {
		d.Parts = []string{"definition"}
	}
	return d, nil
}

// PrettyJSON indents a JSON document with sorted keys for reading; what is
// not JSON is returned as it is.
func PrettyJSON(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return strings.TrimRight(b.String(), "\n")
}
