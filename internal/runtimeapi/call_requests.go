package runtimeapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/notify"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/store"
)

// Per-call decisions (R16): the console side of internal/callgate's flow.
// A runtime files a call request (POST callgate.PathRequests), reads its
// status with a long poll (GET callgate.PathRequests/{id}?wait=N) and
// spends the grant once (POST callgate.PathConsume). The people decide on
// the console's Approvals page (web).

// Defaults of the per-call settings of Config.
const (
	// defaultCallRequestLifetime is how long a request waits for a decision.
	defaultCallRequestLifetime = time.Hour
	// expireEvery is how often the background loop closes expired requests.
	expireEvery = 30 * time.Second
	// longPollCap bounds one long poll below the listeners' one-minute
	// write timeout: a runtime asking for callgate.MaxWait is answered
	// "pending" a little earlier and asks again.
	longPollCap = callgate.MaxWait - 10*time.Second
	// rowPoll is how often a long poll reads the request again, for the
	// decisions another console (on the same PostgreSQL) makes; this
	// process's own decisions wake it at once (store.CallDecisions).
	rowPoll = 500 * time.Millisecond
	// maxRequestBody bounds a call request's body: the masked arguments
	// (callgate.MaxArgumentsBytes) and the rest of the request.
	maxRequestBody = callgate.MaxArgumentsBytes + 16<<10
)

// callSettings are Config's per-call settings with their defaults.
type callSettings struct {
	baseURL  string
	grant    time.Duration
	lifetime time.Duration
	limits   approval.Limits
	notifier notify.Notifier
}

func newCallSettings(cfg Config) callSettings {
	s := callSettings{baseURL: cfg.BaseURL, grant: cfg.GrantLifetime, lifetime: cfg.CallRequestLifetime,
		limits: cfg.CallLimits, notifier: cfg.Notifier}
	if s.grant <= 0 {
		s.grant = bundle.DefaultGrantLifetime
	}
	if s.lifetime <= 0 {
		s.lifetime = defaultCallRequestLifetime
	}
	if s.limits == (approval.Limits{}) {
		s.limits = approval.DefaultLimits
	}
	if s.notifier == nil {
		s.notifier = notify.Nop{}
	}
	return s
}

// CallRequestPath is the console page of a call request: where it is
// decided (callgate.Status.URL is the console's base URL and this).
func CallRequestPath(id string) string { return "/approvals/calls/" + id }

// apiFileCall is POST callgate.PathRequests: 201 and the Status of a new
// request, 200 and the open one's with the same identity, 400 for a body
// the contract refuses, 429 over the pending limits.
func (s *Service) apiFileCall(c echo.Context) error {
	tok, err := s.runtimeToken(c)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, maxRequestBody))
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return apperr.Errorf(apperr.TooLarge, "A call request is at most %d bytes.", maxRequestBody)
		}
		return err
	}
	ctx := c.Request().Context()
	req, err := parseCallRequest(body)
	if err != nil {
		return apperr.Invalidf("Call request refused: %v.", err)
	}
	tool, err := s.callTool(ctx, req)
	if err != nil {
		return err
	}
	in := store.NewCallRequest{Request: *req, TokenID: tok.ID, RiskClass: tool.Risk.String(),
		Lifetime: s.calls.lifetime, Limits: s.calls.limits}
	if req.Confirmed {
		if in.Grant, err = s.grantKey(ctx); err != nil {
			return err
		}
	}
	cr, created, err := s.db.FileCallRequest(ctx, in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		s.notifyCall(ctx, cr)
	}
	return c.JSON(status, s.callStatus(cr))
}

// grantKey is what grants are signed with now: the active bundle key.
func (s *Service) grantKey(ctx context.Context) (store.GrantKey, error) {
	if s.keys == nil {
		return store.GrantKey{}, apperr.Unavailablef("The console has no signing key to sign the grant with.")
	}
	k, err := s.keys.Active(ctx)
	if err != nil {
		return store.GrantKey{}, err
	}
	return store.GrantKey{Key: k, Lifetime: s.calls.grant}, nil
}

// notifyCall tells approvers of a new request waiting for them (confirm
// requests wait for the principal alone, and one confirmed at once waits
// for nobody).
func (s *Service) notifyCall(ctx context.Context, cr *store.CallRequest) {
	if cr.State != callgate.Pending || cr.Mode != policy.PerCallApprove {
		return
	}
	summary := cr.PrincipalName() + " asks to call " + cr.Tool
	if cr.Reason != "" {
		summary += ": " + cr.Reason
	}
	s.calls.notifier.Notify(context.WithoutCancel(ctx), notify.Event{Kind: notify.CallRequest, ID: cr.ID, Tool: cr.Tool,
		RiskClass: cr.RiskClass, Summary: summary, Who: cr.PrincipalName(),
		URL: s.calls.baseURL + CallRequestPath(cr.ID), At: cr.CreatedAt})
}

// callStatus is a request's callgate.Status now.
func (s *Service) callStatus(cr *store.CallRequest) callgate.Status {
	st := callgate.Status{ID: cr.ID, State: cr.StateAt(s.db.Now()), URL: s.calls.baseURL + CallRequestPath(cr.ID),
		Comment: cr.Comment, DecidedBy: cr.DecidedBy, ExpiresAt: cr.ExpiresAt}
	if st.State == callgate.Approved {
		st.Grant, st.ExpiresAt = cr.Grant, cr.GrantNotAfter
	}
	return st
}

// apiCallStatus is GET callgate.PathRequests/{id}: the Status, after
// waiting up to ?wait= seconds while it is pending.
func (s *Service) apiCallStatus(c echo.Context) error {
	if _, err := s.runtimeToken(c); err != nil {
		return err
	}
	wait, err := waitParam(c.QueryParam("wait"))
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cr, err := s.awaitDecision(ctx, c.Param("id"), wait)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.callStatus(cr))
}

// waitParam reads ?wait=: whole seconds, 0 to callgate.MaxWait; a longer
// wait is shortened to longPollCap.
func waitParam(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || time.Duration(n)*time.Second > callgate.MaxWait {
		return 0, apperr.Invalidf("wait must be whole seconds from 0 to %d.", int(callgate.MaxWait/time.Second))
	}
	return min(time.Duration(n)*time.Second, longPollCap), nil
}

// awaitDecision reads request id until it is no longer pending or wait
// has passed: woken at once by this process's decisions, and reading the
// row every rowPoll for another console's.
func (s *Service) awaitDecision(ctx context.Context, id string, wait time.Duration) (*store.CallRequest, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(rowPoll)
	defer tick.Stop()
	for {
		woken := s.db.CallDecisions() // before reading, so no decision is missed
		cr, err := s.db.CallRequest(ctx, id)
		if err != nil {
			return nil, err
		}
		if cr.StateAt(s.db.Now()) != callgate.Pending || wait <= 0 {
			return cr, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			wait = 0
		case <-woken:
		case <-tick.C:
		}
	}
}

// apiConsumeGrant is POST callgate.PathConsume: 204 once per grant, 409
// after, 410 when expired, 400 for a grant that does not verify with this
// console's keys.
func (s *Service) apiConsumeGrant(c echo.Context) error {
	if _, err := s.runtimeToken(c); err != nil {
		return err
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, 16<<10))
	if err != nil {
		return apperr.Invalidf("A consume request is a small JSON object: %s.", "its body could not be read")
	}
	in, err := parseConsume(body)
	if err != nil {
		return apperr.Invalidf("Consume refused: %v.", err)
	}
	ctx := c.Request().Context()
	keys, err := s.publicKeys(ctx)
	if err != nil {
		return err
	}
	g, err := bundle.VerifyGrant([]byte(in.Grant), keys, s.db.Now())
	if errors.Is(err, bundle.ErrGrantExpired) {
		return apperr.Errorf(apperr.Gone, "The grant has expired: ask for the call again.")
	}
	if err != nil {
		return apperr.Invalidf("The grant does not verify: %v.", err)
	}
	if _, err := s.db.ConsumeGrant(ctx, g.CallRequest, g.Nonce, in.Instance); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// expireCallRequests closes the requests past their time (the
// background loop's; reads already answer them expired).
func (s *Service) expireCallRequests(ctx context.Context) {
	if _, err := s.db.ExpireCallRequests(ctx); err != nil && ctx.Err() == nil {
		s.log.Warn("closing expired call requests", "err", err)
	}
}
