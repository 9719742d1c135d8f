package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
)

// DefaultDecisionWait is how long a call that needs a person waits for the
// decision before it answers APPROVAL_PENDING (Options.DecisionWait).
const DefaultDecisionWait = 60 * time.Second

// Bounds of one exchange with the console's call-request API besides a
// long poll's own wait.
const (
	gateRequestTimeout  = 10 * time.Second
	defaultProgressStep = 5 * time.Second
)

// decisionInClient is perCall's decision for a call that asked the
// principal in their MCP client (an elicitation) and answers once they
// did: that round is not a finished call and is not recorded.
const decisionInClient = "in_client"

// perCallGate is the runtime's state for per-call decisions: the key that
// signs elicitation round trips (percall_mcp.go) and, in tests, a shorter
// step between progress notifications.
type perCallGate struct {
	stateKey     stateKey
	progressStep time.Duration
}

// perCall asks a person about a call the executor did not run because its
// policy asks (R16), and runs it under the grant the decision yields. It
// returns the call's result and its call-record decision (decisionInClient
// while the principal is being asked in their client).
//
// Nothing reaches the upstream without a grant the runtime verified with
// the keys it trusts, found bound to exactly this call and consumed at the
// console; a console that cannot be reached fails the call closed.
func (r *Runtime) perCall(ctx context.Context, s *snapshot, name string, args map[string]any, ask *executor.Ask) (*executor.Result, string) {
	refuse := func(e *executor.Error) (*executor.Result, string) {
		return &executor.Result{Tool: name, Err: e}, callrecord.DeniedPerCall
	}
	t := s.toolNamed(name)
	if r.console == nil || t == nil {
		return refuse(noConsoleToAsk(name, ask))
	}
	req, err := r.callRequest(ctx, s, t, args, ask)
	if err != nil {
		return refuse(gateRefusal(err.Error(), instructionTryLater))
	}
	if mc := mcpCallFrom(ctx); ask.Mode == policy.PerCallConfirm && mc.canElicit() {
		confirmed, asked, err := r.confirmInClient(ctx, mc, req)
		switch {
		case asked:
			return &executor.Result{Tool: name}, decisionInClient
		case err != nil:
			return refuse(gateRefusal(err.Error(), "Nothing was sent. Call the tool again to be asked again."))
		case !confirmed:
			return refuse(gateRefusal(fmt.Sprintf("tool %q: declined by the principal", name),
				"Nothing was sent: the person you act for declined this exact call. Do not repeat it unless they ask you to."))
		}
		req.Confirmed = true
	}
	st, err := r.fileAndWait(ctx, req)
	if err != nil {
		return refuse(gateFailure(name, err))
	}
	if st.State != callgate.Approved {
		return r.undecided(name, req, st)
	}
	return r.runGranted(ctx, s, req, st, args)
}

// callRequest is what the runtime files for this call: the definition
// digest, the digest of the arguments and the arguments with secrets
// masked, the principal, the bundle version and this instance.
func (r *Runtime) callRequest(ctx context.Context, s *snapshot, t *bundle.Tool, args map[string]any, ask *executor.Ask) (callgate.Request, error) {
	digest, err := callrecord.ArgumentsDigest(args)
	if err != nil {
		return callgate.Request{}, fmt.Errorf("tool %q: the arguments cannot be digested, so no decision can be bound to them: %v", t.Name, err)
	}
	p := principal.FromContext(ctx)
	return callgate.Request{Schema: callgate.RequestSchema, Tool: t.Name, DefinitionDigest: t.Digest,
		ArgumentsDigest: digest, Arguments: callgate.MaskSecrets(args, t.InputSchema),
		Mode: ask.Mode, Reason: ask.Reason,
		Principal:     callgate.Principal{Principal: recordedPrincipal(p), Groups: p.Groups},
		BundleVersion: s.bundle.Version, Instance: r.instanceID}, nil
}

// recordedPrincipal is p as call records and grants name it: the
// anonymous kind when there is none.
func recordedPrincipal(p principal.Principal) callrecord.Principal {
	out := callrecord.Principal{Kind: string(p.Kind), Subject: p.Subject, ClientID: p.ClientID}
	if out.Kind == "" {
		out.Kind = string(principal.Anonymous)
	}
	return out
}

// fileAndWait files req and, while it is pending, waits up to the
// decision wait for the decision (awaitDecision).
func (r *Runtime) fileAndWait(ctx context.Context, req callgate.Request) (callgate.Status, error) {
	fctx, cancel := context.WithTimeout(ctx, gateRequestTimeout)
	st, err := r.console.fileCallRequest(fctx, req)
	cancel()
	if err != nil {
		return st, err
	}
	return r.awaitDecision(ctx, st, req)
}

// runGranted checks the grant of an approved request — it verifies with
// the trusted keys, it binds this exact call — consumes it at the console
// and runs the call through the executor under it.
func (r *Runtime) runGranted(ctx context.Context, s *snapshot, req callgate.Request, st callgate.Status, args map[string]any) (*executor.Result, string) {
	name := req.Tool
	refuse := func(msg string) (*executor.Result, string) {
		return &executor.Result{Tool: name, Err: gateRefusal(fmt.Sprintf("tool %q, call request %s: %s", name, st.ID, msg),
			"Nothing was sent. Call the tool again with the same arguments to ask for a new decision.")}, callrecord.DeniedPerCall
	}
	keys := r.keys.Load()
	if keys == nil {
		return refuse("this runtime trusts no keys to verify the grant with")
	}
	g, err := bundle.VerifyGrant([]byte(st.Grant), *keys, r.opts.Now())
	if err != nil {
		return refuse("the console's grant is refused: " + err.Error())
	}
	p := req.Principal.Principal
	if err := g.Binds(bundle.GrantedCall{Principal: bundle.GrantPrincipal{ClientID: p.ClientID, Kind: p.Kind, Subject: p.Subject},
		Tool: name, DefinitionDigest: req.DefinitionDigest, ArgumentsDigest: req.ArgumentsDigest, BundleVersion: s.bundle.Version}); err != nil {
		return refuse("the console's grant is refused: " + err.Error())
	}
	cctx, cancel := context.WithTimeout(ctx, gateRequestTimeout)
	err = r.console.consumeGrant(cctx, st.Grant, r.instanceID)
	cancel()
	if err != nil {
		return &executor.Result{Tool: name, Err: gateFailure(name, err)}, callrecord.DeniedPerCall
	}
	res := s.exec.Call(executor.WithGrant(ctx, g), name, args)
	if res.Ask != nil {
		// The grant decides less than the policy asks now.
		return res, callrecord.DeniedPerCall
	}
	return res, ""
}

// undecided is the answer for a request the console did not approve
// (yet): APPROVAL_PENDING while it waits, POLICY_DENIED otherwise.
func (r *Runtime) undecided(name string, req callgate.Request, st callgate.Status) (*executor.Result, string) {
	res := &executor.Result{Tool: name}
	switch st.State {
	case callgate.Pending:
		who := "a security approver"
		if req.Mode == policy.PerCallConfirm {
			who = "the principal (the person the agent acts for), signed in to the toolgate console,"
		}
		res.Err = &executor.Error{Class: executor.ClassApprovalPending, CallRequest: st.ID, DecisionURL: st.URL,
			Message:     fmt.Sprintf("tool %q: call request %s waits for %s to decide on this exact call, at %s", name, st.ID, who, st.URL),
			Instruction: fmt.Sprintf("Nothing was sent. Tell the person to decide at %s; once decided, call %s again with exactly the same arguments (other arguments are a new request).", st.URL, name)}
		return res, callrecord.AwaitingDecision
	case callgate.Denied:
		msg := fmt.Sprintf("tool %q: call request %s was denied", name, st.ID)
		if st.DecidedBy != "" {
			msg += " by " + st.DecidedBy
		}
		if st.Comment != "" {
			msg += ": " + st.Comment
		}
		res.Err = gateRefusal(msg, "Nothing was sent. Do not repeat this call unchanged: the decision stands for these arguments; follow the comment.")
	case callgate.Expired:
		res.Err = gateRefusal(fmt.Sprintf("tool %q: call request %s expired before it was decided or its grant was used", name, st.ID),
			"Nothing was sent. Call the tool again with the same arguments to ask for a new decision.")
	default:
		res.Err = gateRefusal(fmt.Sprintf("tool %q: call request %s is %s: its grant can no longer be used", name, st.ID, st.State),
			"Nothing was sent now. This exact call already ran once under its grant: read the current state before asking again.")
	}
	res.Err.CallRequest = st.ID
	return res, callrecord.DeniedPerCall
}

const instructionTryLater = "Nothing was sent. Try again later with the same arguments."

func gateRefusal(msg, instruction string) *executor.Error {
	return &executor.Error{Class: executor.ClassPolicyDenied, Message: msg, Instruction: instruction}
}

// gateFailure is the refusal of a call whose decision could not be asked
// for or its grant not spent: fail closed, with the console's reason.
func gateFailure(name string, err error) *executor.Error {
	var refused *consoleRefusal
	switch {
	case errors.Is(err, errGrantUsed):
		return gateRefusal(fmt.Sprintf("tool %q: the grant for this call was already used", name),
			"Nothing was sent now; the call ran once under this grant. Read the current state before asking again.")
	case errors.Is(err, errGrantGone):
		return gateRefusal(fmt.Sprintf("tool %q: the grant expired or its request was withdrawn before it was used", name),
			"Nothing was sent. Call the tool again with the same arguments to ask for a new decision.")
	case errors.As(err, &refused):
		return gateRefusal(fmt.Sprintf("tool %q: a person must decide this call, and %v", name, refused),
			"Nothing was sent. Do what the console's message says before calling again.")
	}
	return gateRefusal(fmt.Sprintf("tool %q: a person must decide this call and the toolgate console that asks them cannot be used (%v); the call fails closed", name, err),
		instructionTryLater)
}

// noConsoleToAsk is the refusal where no console can ask anyone: a
// runtime pulling from a registry without --console.
func noConsoleToAsk(name string, ask *executor.Ask) *executor.Error {
	who := "the principal's confirmation"
	if ask.Mode == policy.PerCallApprove {
		who = "a security approver's approval"
	}
	return gateRefusal(fmt.Sprintf("tool %q needs %s for each call, and this runtime has no toolgate console to ask (it pulls its bundles from a registry without --console)", name, who),
		"Nothing was sent. Use a runtime connected to the toolgate console for this tool, or another tool.")
}
