package bundle

import (
	"bytes"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/policy"
)

// Changes is what publishing a new bundle would change for runtimes: the
// console's publish preview. Lists are sorted by name.
type Changes struct {
	ToolsAdded     []string     `json:"tools_added"`
	ToolsRemoved   []string     `json:"tools_removed"`
	ToolsChanged   []ToolChange `json:"tools_changed"`
	SourcesAdded   []string     `json:"sources_added"`
	SourcesRemoved []string     `json:"sources_removed"`
	// SourcesChanged names sources whose origin, base path or
	// authentication changed.
	SourcesChanged []string `json:"sources_changed"`
}

// Empty reports whether nothing changed (publishing would only renew the
// expiry).
func (c Changes) Empty() bool {
	return len(c.ToolsAdded)+len(c.ToolsRemoved)+len(c.ToolsChanged)+
		len(c.SourcesAdded)+len(c.SourcesRemoved)+len(c.SourcesChanged) == 0
}

// ToolChange is one tool present in both bundles that differs.
type ToolChange struct {
	Tool string `json:"tool"`
	// RiskBefore/RiskAfter are set (class names) only when the class changed.
	RiskBefore string `json:"risk_before,omitempty"`
	RiskAfter  string `json:"risk_after,omitempty"`
	// Policy lists changed effective-policy fields with dotted wire names
	// ("retry.attempts"), as policy.Diff reports them.
	Policy []policy.FieldChange `json:"policy,omitempty"`
	// Definition lists other changed parts of the tool by wire name:
	// "source", "method", "path", "description", "params", "body",
	// "input_schema", "reasons", "annotations", "approvals", "digest".
	Definition []string `json:"definition,omitempty"`
}

// RiskChanged reports whether the tool's risk class changed.
func (c ToolChange) RiskChanged() bool { return c.RiskBefore != c.RiskAfter }

// Diff compares two bundles; old may be nil (first publish: everything is
// added). Issue and expiry times and the version are not compared: they
// change on every publish.
func Diff(old, new *Bundle) Changes {
	if old == nil {
		old = &Bundle{}
	}
	if new == nil {
		new = &Bundle{}
	}
	var c Changes
	oldTools := indexBy(old.Tools, func(t Tool) string { return t.Name })
	newTools := indexBy(new.Tools, func(t Tool) string { return t.Name })
	c.ToolsAdded, c.ToolsRemoved = addedRemoved(oldTools, newTools)
	for name, nt := range newTools {
		ot, ok := oldTools[name]
		if !ok {
			continue
		}
		if tc, changed := diffTool(ot, nt); changed {
			c.ToolsChanged = append(c.ToolsChanged, tc)
		}
	}
	slices.SortFunc(c.ToolsChanged, func(a, b ToolChange) int { return strings.Compare(a.Tool, b.Tool) })

	oldSources := indexBy(old.Sources, func(s Source) string { return s.Name })
	newSources := indexBy(new.Sources, func(s Source) string { return s.Name })
	c.SourcesAdded, c.SourcesRemoved = addedRemoved(oldSources, newSources)
	for name, ns := range newSources {
		if prev, ok := oldSources[name]; ok && !jsonEqual(prev, ns) {
			c.SourcesChanged = append(c.SourcesChanged, name)
		}
	}
	slices.Sort(c.SourcesChanged)
	return c
}

func diffTool(o, n Tool) (ToolChange, bool) {
	tc := ToolChange{Tool: n.Name, Policy: policy.Diff(o.Policy, n.Policy)}
	if o.Risk != n.Risk {
		tc.RiskBefore, tc.RiskAfter = o.Risk.String(), n.Risk.String()
	}
	parts := []struct {
		name     string
		old, new any
	}{
		{"source", o.Source, n.Source},
		{"method", o.Method, n.Method},
		{"path", o.Path, n.Path},
		{"description", o.Description, n.Description},
		{"params", o.Params, n.Params},
		{"body", o.Body, n.Body},
		{"input_schema", o.InputSchema, n.InputSchema},
		{"reasons", o.Reasons, n.Reasons},
		{"annotations", o.Annotations, n.Annotations},
		{"approvals", o.Approvals, n.Approvals},
		{"digest", o.Digest, n.Digest},
	}
	for _, p := range parts {
		if !jsonEqual(p.old, p.new) {
			tc.Definition = append(tc.Definition, p.name)
		}
	}
	changed := tc.RiskChanged() || len(tc.Policy) > 0 || len(tc.Definition) > 0
	return tc, changed
}

func indexBy[T any](items []T, key func(T) string) map[string]T {
	m := make(map[string]T, len(items))
	for _, it := range items {
		m[key(it)] = it
	}
	return m
}

func addedRemoved[T any](old, new map[string]T) (added, removed []string) {
	for name := range new {
		if _, ok := old[name]; !ok {
			added = append(added, name)
		}
	}
	for name := range old {
		if _, ok := new[name]; !ok {
			removed = append(removed, name)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

// jsonEqual compares two values by their canonical JSON, so that formatting
// of an input schema or nil-versus-empty lists never shows as a change.
func jsonEqual(a, b any) bool {
	ca, errA := canonicalJSON(a)
	cb, errB := canonicalJSON(b)
	if errA != nil || errB != nil {
		return false
	}
	return bytes.Equal(ca, cb)
}
