package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// maxCallsShown bounds the Calls section (the pending limits bound what
// can wait; the oldest come first).
const maxCallsShown = 100

// callNotices are the confirmations a redirect to a call's page may ask for.
var callNotices = map[string]string{
	"approved":  "Approved: the runtime may now make this call, once.",
	"denied":    "Denied: the agent is told, with your comment.",
	"confirmed": "Confirmed: the agent's next call with these arguments runs, once.",
	"declined":  "Declined: the call will not be made.",
}

// callsSection reads the approve-mode calls waiting for an approver (a
// confirm-mode call waits for its principal alone, on its own page).
func (s *Server) callsSection(c echo.Context) (views.CallsSectionView, error) {
	ctx := c.Request().Context()
	pending, err := s.deps.Store.PendingCallRequests(ctx, policy.PerCallApprove, maxCallsShown)
	if err != nil {
		return views.CallsSectionView{}, err
	}
	tools, me, now := newCallTools(s.deps.Store), currentUser(c), s.deps.Store.Now()
	m := views.CallsSectionView{}
	for i := range pending {
		cr := &pending[i]
		m.Calls = append(m.Calls, callVM(cr, tools.tool(ctx, cr.BundleVersion, cr.Tool), me, now))
	}
	return m, nil
}

// approvalsCalls is the Calls section alone, for its HTMX polling; a
// full-page navigation goes to the Approvals page instead.
func (s *Server) approvalsCalls(c echo.Context) error {
	if !isHTMX(c) {
		return seeOther(c, "/approvals#calls")
	}
	m, err := s.callsSection(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.CallsSection(m))
}

// visibleCall loads call request id for the signed-in person: a
// confirm-mode request only for its principal (no one else learns it
// exists), an approve-mode one for anyone who may read the console.
func (s *Server) visibleCall(c echo.Context) (*store.CallRequest, views.CallRequestVM, error) {
	ctx := c.Request().Context()
	me := currentUser(c)
	cr, err := s.deps.Store.CallRequest(ctx, c.Param("id"))
	if err != nil {
		return nil, views.CallRequestVM{}, err
	}
	vm := callVM(cr, newCallTools(s.deps.Store).tool(ctx, cr.BundleVersion, cr.Tool), me, s.deps.Store.Now())
	readsConsole := me.Has(auth.RoleViewer) || me.Has(auth.RoleApprover) || me.Has(auth.RoleAdmin)
	isPrincipal := approval.IsPrincipal(me.CallDecider(), cr.CallPrincipal())
	if (cr.Mode == policy.PerCallConfirm && !isPrincipal) || (cr.Mode == policy.PerCallApprove && !readsConsole) {
		return nil, vm, apperr.NotFoundf("The call request was not found.")
	}
	if vm.CanDecide {
		if err := s.deps.Store.CheckCallDecider(ctx, me.ID, cr.ID); apperr.CodeOf(err) == apperr.Forbidden {
			vm.Refusal = apperr.MessageOf(err)
		} else if err != nil {
			return nil, vm, err
		}
	}
	return cr, vm, nil
}

// callPage is a call request's page: GET /approvals/calls/:id, the URL a
// runtime gives the agent (callgate.Status.URL).
func (s *Server) callPage(c echo.Context) error {
	_, vm, err := s.visibleCall(c)
	if err != nil {
		return err
	}
	m := views.CallRequestView{Page: s.page(c, "Call to "+vm.Tool), Call: vm, Notice: callNotices[c.QueryParam("done")]}
	return render(c, http.StatusOK, views.CallRequestPage(m))
}

func (s *Server) callApprove(c echo.Context) error { return s.callDecide(c, true) }
func (s *Server) callDeny(c echo.Context) error    { return s.callDecide(c, false) }

// callDecide decides a call in two steps, both plain POSTs: the Approve…
// or Deny… button asks for the confirmation page, whose form comes back
// with confirm=yes and decides. The store checks the people rules again
// (approval.MayDecideCall, R10 independence), whatever the pages showed.
func (s *Server) callDecide(c echo.Context, approve bool) error {
	cr, vm, err := s.visibleCall(c)
	if err != nil {
		return err
	}
	if vm.Refusal != "" || !vm.CanDecide {
		return s.callRefused(c, vm, s.whyNot(c, cr, vm))
	}
	if c.FormValue("confirm") != "yes" {
		m := views.CallConfirmView{Page: s.page(c, "Decide the call to "+vm.Tool), Call: vm, Approve: approve, Comment: c.FormValue("comment")}
		return render(c, http.StatusOK, views.CallConfirmPage(m))
	}
	d := store.CallDecision{UserID: currentUser(c).ID, ID: cr.ID, Approve: approve, Comment: c.FormValue("comment")}
	if approve {
		if d.Grant, err = s.grantKey(c); err != nil {
			return err
		}
	}
	if _, err := s.deps.Store.DecideCallRequest(c.Request().Context(), d); err != nil {
		return s.callRefused(c, vm, err)
	}
	done := map[bool]string{true: "approved", false: "denied"}[approve]
	if cr.Mode == policy.PerCallConfirm {
		done = map[bool]string{true: "confirmed", false: "declined"}[approve]
	}
	return seeOther(c, "/approvals/calls/"+cr.ID+"?done="+done)
}

// whyNot is the refusal of a decision the page did not offer: the store's
// people rules, or the request's state.
func (s *Server) whyNot(c echo.Context, cr *store.CallRequest, vm views.CallRequestVM) error {
	if vm.Refusal != "" {
		return apperr.Forbiddenf("%s", vm.Refusal)
	}
	if err := s.deps.Store.CheckCallDecider(c.Request().Context(), currentUser(c).ID, cr.ID); err != nil {
		return err
	}
	if r := approval.CallTransition(vm.State, callgate.Approved); r != nil {
		return apperr.Conflictf("%s", r.Message)
	}
	return apperr.Forbiddenf("You cannot decide this call.")
}

// grantKey is what the console signs grants with: its active bundle key,
// valid for --grant-lifetime.
func (s *Server) grantKey(c echo.Context) (store.GrantKey, error) {
	if s.deps.Keys == nil {
		return store.GrantKey{}, apperr.Unavailablef("The console has no signing key to sign the grant with.")
	}
	k, err := s.deps.Keys.Active(c.Request().Context())
	if err != nil {
		return store.GrantKey{}, err
	}
	life := s.deps.Config.GrantLifetime
	if life <= 0 {
		life = bundle.DefaultGrantLifetime
	}
	return store.GrantKey{Key: k, Lifetime: life}, nil
}

// callRefused shows the call's page again with a refused decision,
// keeping the comment typed.
func (s *Server) callRefused(c echo.Context, vm views.CallRequestVM, refusal error) error {
	status, errs, ok := refusalProblem(refusal)
	if !ok {
		if apperr.CodeOf(refusal) != apperr.Conflict {
			return refusal
		}
		status, errs = http.StatusConflict, []views.FormError{{Message: apperr.MessageOf(refusal)}}
	}
	m := views.CallRequestView{Page: s.page(c, "Call to "+vm.Tool), Call: vm, Errors: errs, Comment: c.FormValue("comment")}
	return render(c, status, views.CallRequestPage(m))
}
