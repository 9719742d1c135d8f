// Package notify tells approvers that something waits for them: a new
// call request (R16) or change request (R10). The console calls a
// Notifier after the request is stored; delivery (webhooks, retries, the
// delivery log) is the Notifier's and never blocks or fails the request.
package notify

import (
	"context"
	"time"
)

// Kinds of Event.
const (
	CallRequest   = "call_request"
	ChangeRequest = "change_request"
)

// Event is one thing waiting for a decision. It carries no arguments and
// no secrets: a receiver follows URL to the console to see the request.
type Event struct {
	Kind string `json:"kind"`
	// ID is the request's id (a call request's id, or a change request's
	// number as text).
	ID string `json:"id"`
	// Tool is the tool concerned, RiskClass its class ("DESTRUCTIVE" …).
	Tool      string `json:"tool"`
	RiskClass string `json:"risk_class"`
	// Summary is one line for a person: what is asked.
	Summary string `json:"summary"`
	// Who asked: the principal of a call request, the requester of a
	// change request.
	Who string `json:"who"`
	// URL is the console page where it is decided.
	URL string    `json:"url"`
	At  time.Time `json:"at"`
}

// Notifier delivers events. Notify returns at once; it must not block on
// the network.
type Notifier interface {
	Notify(ctx context.Context, e Event)
}

// Nop is a Notifier that drops every event (no webhook configured).
type Nop struct{}

// Notify does nothing.
func (Nop) Notify(context.Context, Event) {}
