package store

import (
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
)

// TestChangeKindsArePolicyActions: the kinds stored with change requests are
// exactly the R10 actions of the policy package, so no mapping can drift.
func TestChangeKindsArePolicyActions(t *testing.T) {
	for kind, action := range map[ChangeKind]policy.Action{
		KindExposeRisky:         policy.ExposeRisky,
		KindEnableMutationRetry: policy.EnableMutationRetry,
		KindLowerRisk:           policy.LowerRiskClass,
	} {
		if string(kind) != string(action) {
			t.Errorf("store kind %q differs from policy action %q", kind, action)
		}
		if kind.Title() == string(kind) {
			t.Errorf("kind %q has no title", kind)
		}
	}
}
