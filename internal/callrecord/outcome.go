package callrecord

// Outcome groups how calls ended for pictures over many calls: five
// groups a person tells apart at a glance, each naming who has to act.
type Outcome string

// The outcome groups, in the order pictures stack them.
const (
	// OutcomeOK: the upstream answered with success.
	OutcomeOK Outcome = "ok"
	// OutcomeRejected: the upstream (or the executor, for the call's own
	// arguments or the response it got) refused the call as sent: a 4xx,
	// a redirect, invalid arguments, a response too large or not JSON.
	// Sending it again unchanged does not help (R3).
	OutcomeRejected Outcome = "rejected"
	// OutcomeFailed: the upstream was unavailable: a 5xx, a timeout, a
	// network failure, rate limiting, an open circuit, the deadline.
	OutcomeFailed Outcome = "failed"
	// OutcomeUnknown: a mutation was sent and no answer came back; it may
	// have been applied (R3).
	OutcomeUnknown Outcome = "unknown"
	// OutcomeDenied: the runtime refused the call before the executor
	// (exposure, groups, conditions).
	OutcomeDenied Outcome = "denied"
)

// Outcomes lists every group in stacking order.
var Outcomes = []Outcome{OutcomeOK, OutcomeRejected, OutcomeFailed, OutcomeUnknown, OutcomeDenied}

// rejectedClasses are the classes of a call refused as sent.
var rejectedClasses = map[string]bool{
	"REJECTED": true, "AUTH_REJECTED": true, "CONFLICT": true, "INVALID_ARGUMENTS": true,
	"REDIRECT_REJECTED": true, "RESPONSE_TOO_LARGE": true, "MALFORMED_JSON": true,
}

// OutcomeOf is the group of a record with decision and class. A class
// this console does not know (a newer runtime's) counts as failed: it is
// a failure, and nothing says the call was refused as sent.
func OutcomeOf(decision, class string) Outcome {
	switch {
	case decision != Allowed:
		return OutcomeDenied
	case class == ClassOK:
		return OutcomeOK
	case class == "OUTCOME_UNKNOWN":
		return OutcomeUnknown
	case rejectedClasses[class]:
		return OutcomeRejected
	}
	return OutcomeFailed
}
