package executor

import (
	"fmt"
	"strconv"
)

// Class is the error class of a failed tool call (R9). The values are the
// wire names agents and runtimes see.
type Class string

// The error classes of R9, exactly as DESIGN.md lists them.
const (
	ClassAuthRejected     Class = "AUTH_REJECTED"
	ClassRateLimited      Class = "RATE_LIMITED"
	ClassServerError      Class = "SERVER_ERROR"
	ClassConflict         Class = "CONFLICT"
	ClassRejected         Class = "REJECTED"
	ClassTimeout          Class = "TIMEOUT"
	ClassNetwork          Class = "NETWORK"
	ClassOutcomeUnknown   Class = "OUTCOME_UNKNOWN"
	ClassRedirectRejected Class = "REDIRECT_REJECTED"
	ClassResponseTooLarge Class = "RESPONSE_TOO_LARGE"
	ClassMalformedJSON    Class = "MALFORMED_JSON"
	ClassCircuitOpen      Class = "CIRCUIT_OPEN"
	ClassInvalidArguments Class = "INVALID_ARGUMENTS"
	ClassToolNotExposed   Class = "TOOL_NOT_EXPOSED"
	ClassDeadlineExceeded Class = "DEADLINE_EXCEEDED"
	ClassAborted          Class = "ABORTED"
	// ClassPolicyDenied: an argument condition of the tool's policy
	// refused the call (R15); nothing was sent.
	ClassPolicyDenied Class = "POLICY_DENIED"
	// ClassApprovalPending: the call waits for a person's decision (R16)
	// that did not come within the runtime's wait; nothing was sent. The
	// message names the call request and its console page.
	ClassApprovalPending Class = "APPROVAL_PENDING"
)

// Error is a classified failure of a tool call. It tells the agent whether
// the operation may have been applied and what to do next.
type Error struct {
	Class Class `json:"class"`
	// MayHaveApplied is true whenever a mutation reached the upstream and
	// its outcome is not known.
	MayHaveApplied bool   `json:"may_have_applied"`
	Message        string `json:"message"`
	Instruction    string `json:"instruction"`
	// Status is the HTTP status of the response that caused the error, 0
	// when there was none.
	Status int `json:"-"`
	// RetryAfterSeconds is the upstream's Retry-After (rounded up), 0 when
	// it sent none.
	RetryAfterSeconds int `json:"retry_after_s,omitempty"`
	// CallRequest is the call request a person decides this call under
	// (R16), and DecisionURL its page on the console: set by a runtime on
	// APPROVAL_PENDING (CallRequest also on a per-call refusal).
	CallRequest string `json:"call_request,omitempty"`
	DecisionURL string `json:"decision_url,omitempty"`
}

// Error implements error: "CLASS: message".
func (e *Error) Error() string { return string(e.Class) + ": " + e.Message }

// newError builds an Error with the standard instruction of its class.
func newError(c Class, mayHaveApplied bool, status int, msg string) *Error {
	e := &Error{Class: c, MayHaveApplied: mayHaveApplied, Message: msg, Status: status}
	e.Instruction = instruction(e)
	return e
}

// instruction is the next step an agent should take for an error. The
// wording follows the verify-before-retry contract of the seeds: rejected
// mutations are corrected, unknown outcomes are read back first.
func instruction(e *Error) string {
	switch e.Class {
	case ClassOutcomeUnknown:
		return "The request was sent but its outcome is unknown: read the current state before deciding whether to retry."
	case ClassConflict:
		return "The request conflicts with the current state: read it and correct the request; do not resend it unchanged."
	case ClassRateLimited:
		if e.RetryAfterSeconds > 0 {
			return "The API is rate limiting: wait " + strconv.Itoa(e.RetryAfterSeconds) + " s before calling again."
		}
		return "The API is rate limiting: wait before calling again."
	case ClassAuthRejected:
		return "Credentials or permissions were refused: check them; do not retry this call unchanged."
	case ClassToolNotExposed:
		return "This tool is not allowed; use one of the exposed tools."
	case ClassInvalidArguments:
		return "Fix the arguments to match the tool's input schema; nothing was sent."
	case ClassCircuitOpen:
		return "The upstream is failing repeatedly and calls are paused; nothing was sent. Try again later."
	case ClassRedirectRejected:
		return "The API answered with a redirect, which is never followed; the tool definition may be out of date."
	case ClassResponseTooLarge:
		return "The response exceeded the tool's size limit; narrow the request (filters, paging)."
	case ClassMalformedJSON:
		return "The API returned invalid JSON; do not assume the request failed or succeeded without reading state."
	case ClassRejected:
		return "The API rejected the request: correct the arguments or state it reports; do not resend it unchanged."
	case ClassApprovalPending:
		return "Nothing was sent: a person must decide this exact call first. Once they have, call this tool again with exactly the same arguments; other arguments are a new request."
	case ClassPolicyDenied:
		return "The tool's policy does not allow this call with these arguments; nothing was sent. Do not resend it unchanged: change the arguments as the message says, or ask a person."
	}
	return transientInstruction(e)
}

// transientInstruction covers the classes whose advice depends on whether a
// mutation may have been applied.
func transientInstruction(e *Error) string {
	if e.MayHaveApplied {
		return "The operation may have been applied: read the current state before deciding whether to retry."
	}
	switch e.Class {
	case ClassAborted:
		return "The call was cancelled by the caller."
	case ClassServerError:
		return "The API failed; nothing indicates the operation was applied. Retry later if it is still needed."
	case ClassDeadlineExceeded:
		return "The tool's time budget ran out; try again later or narrow the request."
	}
	return "The API could not be reached in time; the operation was not applied. Retry later if it is still needed."
}

// statusClass maps an HTTP status that is not a success to its R9 class.
func statusClass(status int) Class {
	switch {
	case status >= 300 && status < 400:
		return ClassRedirectRejected
	case status == 401 || status == 403:
		return ClassAuthRejected
	case status == 409:
		return ClassConflict
	case status == 429:
		return ClassRateLimited
	case status >= 400 && status < 500:
		return ClassRejected
	}
	return ClassServerError
}

// statusMessage is the message of an error caused by a response status.
func statusMessage(status int, text string) string {
	if text == "" {
		return fmt.Sprintf("upstream answered HTTP %d", status)
	}
	return fmt.Sprintf("upstream answered HTTP %d %s", status, text)
}
