package callrecord

import "testing"

// Every class lands in the group that says who has to act; a refusal by
// the runtime is denied whatever its class, and a class from a newer
// runtime is a failure.
func TestOutcomeOf(t *testing.T) {
	tests := []struct {
		decision, class string
		want            Outcome
	}{
		{Allowed, ClassOK, OutcomeOK},
		{Allowed, "REJECTED", OutcomeRejected},
		{Allowed, "AUTH_REJECTED", OutcomeRejected},
		{Allowed, "CONFLICT", OutcomeRejected},
		{Allowed, "INVALID_ARGUMENTS", OutcomeRejected},
		{Allowed, "MALFORMED_JSON", OutcomeRejected},
		{Allowed, "SERVER_ERROR", OutcomeFailed},
		{Allowed, "TIMEOUT", OutcomeFailed},
		{Allowed, "RATE_LIMITED", OutcomeFailed},
		{Allowed, "CIRCUIT_OPEN", OutcomeFailed},
		{Allowed, "DEADLINE_EXCEEDED", OutcomeFailed},
		{Allowed, "SOMETHING_NEW", OutcomeFailed},
		{Allowed, "OUTCOME_UNKNOWN", OutcomeUnknown},
		{DeniedExposure, "TOOL_NOT_EXPOSED", OutcomeDenied},
		{DeniedGroup, "TOOL_NOT_EXPOSED", OutcomeDenied},
		{DeniedCondition, "POLICY_DENIED", OutcomeDenied},
	}
	for _, tt := range tests {
		if got := OutcomeOf(tt.decision, tt.class); got != tt.want {
			t.Errorf("OutcomeOf(%s, %s) = %s, want %s", tt.decision, tt.class, got, tt.want)
		}
	}
	if len(Outcomes) != 5 {
		t.Errorf("Outcomes has %d groups", len(Outcomes))
	}
}
