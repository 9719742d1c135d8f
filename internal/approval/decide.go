package approval

import "time"

// Code names why a decision is refused, for callers that branch on it.
type Code string

// The refusal codes.
const (
	// NotAnApprover: the account is disabled or does not hold the approver role.
	NotAnApprover Code = "not_an_approver"
	// OwnRequest: the approver asked for the change.
	OwnRequest Code = "own_request"
	// ApproverControlsRequester: the approver controls the requester's account.
	ApproverControlsRequester Code = "approver_controls_requester"
	// RequesterControlsApprover: the requester controls the approver's account.
	RequesterControlsApprover Code = "requester_controls_approver"
	// SharedController: one console account controls both.
	SharedController Code = "shared_controller"
)

// Refusal is a decision the rules refuse, with the sentence to show.
type Refusal struct {
	Code    Code
	Message string
	// Until is when the approver may decide, for the independence refusals
	// (zero for the others).
	Until time.Time
}

// Error returns the sentence, so a Refusal can travel as an error.
func (r *Refusal) Error() string { return r.Message }

// Account is a console account as the rules see it.
type Account struct {
	ID    int64
	Email string
}

// Decider is the account asking to decide a request.
type Decider struct {
	Account
	Approver bool // holds the approver role
	Disabled bool
}

// MayDecide refuses a decision (approve or reject) by d of a request
// requester asked for, or returns nil.
func MayDecide(d Decider, requester int64) *Refusal {
	if d.Disabled || !d.Approver {
		return &Refusal{Code: NotAnApprover, Message: "Only a security approver can decide change requests."}
	}
	if d.ID == requester {
		return &Refusal{Code: OwnRequest, Message: "You asked for this change, so someone else must decide it."}
	}
	return nil
}

// CouldBeOnePerson reports whether an approval between two accounts could
// have been given by one person whatever the console recorded: when either
// account is local (not managed by an identity provider), since anyone with
// access to the host can create local accounts without any console act.
func CouldBeOnePerson(requesterLocal, approverLocal bool) bool {
	return requesterLocal || approverLocal
}
