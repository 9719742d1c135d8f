package bundle

import (
	"strings"

	"github.com/toolgate/toolgate/internal/policy"
)

// Restricts reports whether the change may cut callers of the tool off:
// its groups or its argument conditions change (R15). Whether the new
// rule is narrower is not judged — any change of who may call, and with
// what, is one to read the tool's callers against before publishing.
func (c ToolChange) Restricts() bool {
	for _, f := range c.Policy {
		if f.Field == policy.FieldGroups || strings.HasPrefix(f.Field, policy.FieldConditions) {
			return true
		}
	}
	return false
}
