// Package approval holds the people rules of R10 as pure functions over
// facts: who may decide a change request, and whether an approver is
// independent of its requester. The store loads the facts inside the
// decision's transaction (the approver, the request, the account acts of
// the window) and calls these functions, as it calls policy.ApprovalNeeded;
// the refusal sentences people read are written here, not in the store.
//
// # Who may decide
//
// A change request is decided by an enabled account holding the approver
// role that is not the requester (MayDecide).
//
// # Per-call decisions (R16)
//
// A call request in approve mode is decided by an enabled approver who is
// not its principal (MayDecideCall; IsPrincipal matches the principal's
// subject against an account's provider subject or email), and who is
// independent of the principal's console account when there is one
// (Independence, as for change requests). A confirm-mode request is
// decided by its principal alone. CallModeAsked says which modes a tool's
// policy lets a runtime ask for, CallTransition which state changes a
// request makes (pending → approved, denied or expired; approved →
// consumed or expired), and Limits bounds the requests waiting at once.
//
// # Control
//
// An account controls another when, within the independence window, it
// created it, gave it the approver role, re-enabled it or reset its
// password — from the console, or by asking an operator on the host to do
// so (toolgate user add --requested-by). Control is transitive: if X
// created A and A created B, X controls B. Acts done on the host without
// naming a console account, and acts of the identity provider, make nobody
// a controller: they are not console accounts.
//
// # Independence
//
// An approval is refused (Independence) when, counting only acts within the
// window:
//
//   - the approver controls the requester (ApproverControlsRequester): one
//     person could create an admin account, ask from it, and approve;
//   - the requester controls the approver (RequesterControlsApprover): one
//     person could make their own approver;
//   - one console account controls both (SharedController): one person could
//     make an admin and an approver and use them together.
//
// A relationship ends when the oldest act of its chain leaves the window;
// the refusal names the chain that lasts longest, and the time from which
// the approver may decide.
//
// # What this cannot see
//
// Local accounts are names, not people. Anyone with access to the host
// (toolgate user add) or who holds two local accounts can request and
// approve alone; only accounts managed by an identity provider, with the
// approver role from its groups, tie an account to a person the console
// does not create. CouldBeOnePerson says which approvals the dashboard
// warns about for that reason.
package approval
