package approval

import (
	"fmt"
	"strings"
	"time"
)

// timeLayout is how refusals write times.
const timeLayout = "2006-01-02 15:04 UTC"

// actVerb says what an act did, in the active voice.
var actVerb = map[ActKind]string{
	ActCreate:        "created",
	ActGrantApprover: "gave the approver role to",
	ActEnable:        "re-enabled",
	ActPasswordReset: "reset the password of",
}

// actPassive is actVerb in the passive voice.
var actPassive = map[ActKind]string{
	ActCreate:        "created",
	ActGrantApprover: "given the approver role",
	ActEnable:        "re-enabled",
	ActPasswordReset: "given a new password",
}

// refusal writes the sentence for c: a single act named as it is, a chain
// with every act of it.
func (f Facts) refusal(g *graph, c finding) *Refusal {
	var chains [][]*link
	switch c.code {
	case ApproverControlsRequester:
		chains = [][]*link{g.path(f.Approver.ID, f.Requester.ID, c.since)}
	case RequesterControlsApprover:
		chains = [][]*link{g.path(f.Requester.ID, f.Approver.ID, c.since)}
	default:
		chains = [][]*link{g.path(c.controller, f.Approver.ID, c.since), g.path(c.controller, f.Requester.ID, c.since)}
	}
	var what string
	if len(chains) == 1 && len(chains[0]) == 1 {
		l := chains[0][0]
		what = fmt.Sprintf("%s on %s, less than %s ago", f.direct(l), l.act.At.UTC().Format(timeLayout), formatWindow(f.Window))
	} else {
		what = fmt.Sprintf("%s (%s), all less than %s ago", f.lead(g, c, chains), f.acts(g, chains), formatWindow(f.Window))
	}
	until := c.since.Add(f.Window)
	return &Refusal{Code: c.code, Until: until, Message: fmt.Sprintf("You cannot approve this request: %s. "+
		"An approver must be independent of the requester (R10): another approver must decide it, or you can from %s.",
		what, until.UTC().Format(timeLayout))}
}

// direct names the one act between the approver and the requester.
func (f Facts) direct(l *link) string {
	verb, req := actVerb[l.act.Kind], f.Requester.Email
	switch {
	case l.to == f.Approver.ID && !l.asked:
		return fmt.Sprintf("its requester %s %s your account", req, verb)
	case l.to == f.Approver.ID:
		return fmt.Sprintf("%s %s your account at the request of its requester %s", l.act.By.Email, verb, req)
	case !l.asked:
		return fmt.Sprintf("you %s the account of its requester %s", verb, req)
	default:
		return fmt.Sprintf("the account of its requester %s was %s at your request", req, actPassive[l.act.Kind])
	}
}

// lead says who controls whom, and through which accounts.
func (f Facts) lead(g *graph, c finding, chains [][]*link) string {
	switch c.code {
	case ApproverControlsRequester:
		return fmt.Sprintf("you control the account of its requester %s through %s", f.Requester.Email, f.between(g, chains[0]))
	case RequesterControlsApprover:
		return fmt.Sprintf("its requester %s controls your account through %s", f.Requester.Email, f.between(g, chains[0]))
	}
	return fmt.Sprintf("%s controls both your account and the account of its requester %s", g.names[c.controller], f.Requester.Email)
}

// between lists the accounts inside a chain.
func (f Facts) between(g *graph, chain []*link) string {
	var names []string
	for _, l := range chain[1:] {
		names = append(names, g.names[l.from])
	}
	return strings.Join(names, ", ")
}

// acts lists every act of the chains, each once.
func (f Facts) acts(g *graph, chains [][]*link) string {
	var out []string
	seen := map[*link]bool{}
	for _, chain := range chains {
		for _, l := range chain {
			if seen[l] {
				continue
			}
			seen[l] = true
			when := " on " + l.act.At.UTC().Format(timeLayout)
			if l.asked {
				out = append(out, fmt.Sprintf("%s %s %s at %s%s", l.act.By.Email, actVerb[l.act.Kind], f.whose(g, l.to),
					f.request(g, l.from), when))
			} else {
				out = append(out, fmt.Sprintf("%s %s %s%s", f.who(g, l.from), actVerb[l.act.Kind], f.whose(g, l.to), when))
			}
		}
	}
	return strings.Join(out, "; ")
}

// who names an account as the doer of an act.
func (f Facts) who(g *graph, id int64) string {
	if id == f.Approver.ID {
		return "you"
	}
	return g.names[id]
}

// whose names an account as what an act was done to.
func (f Facts) whose(g *graph, id int64) string {
	if id == f.Approver.ID {
		return "your account"
	}
	return g.names[id]
}

// request names the account that asked for an act.
func (f Facts) request(g *graph, id int64) string {
	if id == f.Approver.ID {
		return "your request"
	}
	return "the request of " + g.names[id]
}

// formatWindow writes the independence window as people say it ("7 days").
func formatWindow(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		if n := d / (24 * time.Hour); n != 1 {
			return fmt.Sprintf("%d days", n)
		}
		return "1 day"
	}
	return d.String()
}
