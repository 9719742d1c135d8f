package web

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// callTools finds the tools call requests name in the bundle versions
// they were filed under, reading each version once per page.
type callTools struct {
	db       *store.DB
	versions map[int64]map[string]*bundle.Tool
}

func newCallTools(db *store.DB) *callTools {
	return &callTools{db: db, versions: map[int64]map[string]*bundle.Tool{}}
}

// tool returns the tool, or nil when its version cannot be read (the page
// then shows the arguments without their schema).
func (ct *callTools) tool(ctx context.Context, version int64, name string) *bundle.Tool {
	tools, ok := ct.versions[version]
	if !ok {
		tools = map[string]*bundle.Tool{}
		if rec, err := ct.db.BundleByVersion(ctx, version); err == nil {
			if b, err := rec.Bundle(); err == nil {
				for i := range b.Tools {
					tools[b.Tools[i].Name] = &b.Tools[i]
				}
			}
		}
		ct.versions[version] = tools
	}
	return tools[name]
}

// callVM is a call request as me sees it now.
func callVM(cr *store.CallRequest, t *bundle.Tool, me *store.User, now time.Time) views.CallRequestVM {
	vm := views.CallRequestVM{ID: cr.ID, Tool: cr.Tool, Class: cr.RiskClass, Mode: cr.Mode, Reason: cr.Reason,
		Principal: cr.PrincipalName(), Waited: age(now.Sub(cr.CreatedAt)), Version: cr.BundleVersion,
		State: cr.StateAt(now), DecidedBy: cr.DecidedBy, Comment: cr.Comment}
	var schema json.RawMessage
	if t != nil {
		vm.Reasons, schema = reasonVMs(t.Reasons), t.InputSchema
	}
	vm.Arguments = callArguments(cr.Arguments, schema)
	d, p := me.CallDecider(), cr.CallPrincipal()
	pending := vm.State == callgate.Pending
	vm.CanDecide = pending && approval.MayDecideCall(d, cr.Mode, p) == nil
	vm.OwnCall = pending && cr.Mode == policy.PerCallApprove && d.Approver && approval.IsPrincipal(d, p)
	return vm
}

// inputSchema is the part of a tool's input schema the page shows.
type inputSchema struct {
	Properties map[string]struct {
		Description string `json:"description"`
		Title       string `json:"title"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// callArguments renders masked arguments against the input schema: the
// schema's properties that were given or are required (by name), then
// any argument the schema lacks.
func callArguments(raw json.RawMessage, schema json.RawMessage) []views.CallArgumentVM {
	var args map[string]json.RawMessage
	_ = json.Unmarshal(raw, &args) // stored by the store as an object
	var s inputSchema
	if len(schema) > 0 {
		_ = json.Unmarshal(schema, &s) // a bundle's schema is valid JSON; without it, names only
	}
	names := make([]string, 0, len(args))
	for n := range args {
		names = append(names, n)
	}
	for n := range s.Properties {
		if _, given := args[n]; !given && slices.Contains(s.Required, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	out := make([]views.CallArgumentVM, 0, len(names))
	for _, n := range names {
		prop, known := s.Properties[n]
		a := views.CallArgumentVM{Name: n, Description: strings.TrimSpace(prop.Description),
			Required: slices.Contains(s.Required, n), Unknown: !known && len(schema) > 0}
		if a.Description == "" {
			a.Description = prop.Title
		}
		a.Value, a.Masked = argumentText(args[n])
		out = append(out, a)
	}
	return out
}

// argumentText is a value as a person reads it: a string as it is, the
// rest as JSON; "(not given)" for a required argument that is absent.
func argumentText(v json.RawMessage) (string, bool) {
	if v == nil {
		return "(not given)", false
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, s == callgate.Masked
	}
	return string(v), false
}
