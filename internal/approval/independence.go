package approval

import "time"

// ActKind is what an act did to an account.
type ActKind string

// The acts that make one account control another (see the package doc).
const (
	ActCreate        ActKind = "create"
	ActGrantApprover ActKind = "grant_approver"
	ActEnable        ActKind = "enable"
	ActPasswordReset ActKind = "password_reset"
)

// Act is one recorded act on an account.
type Act struct {
	Subject Account
	Kind    ActKind
	// By is who did it: a console account, or (ID 0) the host or the
	// identity provider, named in Email (e.g. operator@host).
	By Account
	// RequestedBy is the console account at whose request it was done
	// (ID 0: nobody said).
	RequestedBy Account
	At          time.Time
}

// Facts is what Independence decides from.
type Facts struct {
	Approver, Requester Account
	// Acts are the recorded acts; those at or before Now - Window are
	// ignored, so a caller may pass more than the window holds.
	Acts   []Act
	Now    time.Time
	Window time.Duration
}

// finding is one way the approver is not independent: the relationship,
// when its longest-lasting chain's oldest act was done (it lasts until then
// plus the window), and for SharedController the controlling account.
type finding struct {
	code       Code
	since      time.Time
	controller int64
}

// Independence refuses an approval by f.Approver of a request by
// f.Requester when either controls the other or one console account
// controls both (see the package doc), or returns nil. Of several
// relationships it names the one that lasts longest; on a tie, the
// approver's control of the requester, then the requester's of the
// approver, then the nearest shared controller.
func Independence(f Facts) *Refusal {
	g := newGraph(f.Acts, f.Now.Add(-f.Window))
	toApprover, toRequester := g.widestTo(f.Approver.ID), g.widestTo(f.Requester.ID)
	var found *finding
	consider := func(c finding) {
		if found == nil || c.since.After(found.since) {
			found = &c
		}
	}
	if t, ok := toRequester[f.Approver.ID]; ok {
		consider(finding{code: ApproverControlsRequester, since: t})
	}
	if t, ok := toApprover[f.Requester.ID]; ok {
		consider(finding{code: RequesterControlsApprover, since: t})
	}
	for _, c := range g.nodes {
		if c == f.Approver.ID || c == f.Requester.ID {
			continue
		}
		ta, okA := toApprover[c]
		tr, okR := toRequester[c]
		if !okA || !okR {
			continue
		}
		shared := finding{code: SharedController, since: earlier(ta, tr), controller: c}
		if found != nil && found.code == SharedController && shared.since.Equal(found.since) &&
			g.hops(shared, f) < g.hops(*found, f) {
			found = &shared // the nearer of two controllers that last as long
		}
		consider(shared)
	}
	if found == nil {
		return nil
	}
	return f.refusal(g, *found)
}

// hops counts the links of a shared controller's two chains.
func (g *graph) hops(c finding, f Facts) int {
	return len(g.path(c.controller, f.Approver.ID, c.since)) + len(g.path(c.controller, f.Requester.ID, c.since))
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
