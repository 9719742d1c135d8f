package executor

import (
	"errors"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/toolgate/toolgate/internal/policy"
)

// Breaker states as BreakerState reports them (gobreaker's names).
const (
	BreakerClosed   = "closed"
	BreakerHalfOpen = "half-open"
	BreakerOpen     = "open"
)

// Breakers carries the circuit breakers of tools from one executor to the
// next. R7 makes a breaker per tool and per runtime instance, while a
// runtime builds a new Executor for every bundle: without a registry each
// publish, even one touching an unrelated tool, would close every circuit
// and let a failing upstream be hammered again. The runtime owns one
// Breakers and passes it in Options.Breakers to every New.
//
// A tool keeps its breaker (state and counts) when its effective breaker
// settings (threshold, reset) and its source origin are unchanged: the
// circuit describes the health of that upstream as judged by those
// settings. Otherwise the tool gets a fresh, closed breaker. Tools missing
// from the newest executor's bundle are dropped. The zero value is not
// usable; use NewBreakers. It is safe for concurrent use.
type Breakers struct {
	mu    sync.Mutex
	tools map[string]*breakerEntry
}

// breakerKey is what must stay equal for a breaker to be carried over.
type breakerKey struct {
	threshold int
	reset     time.Duration
	origin    string // scheme://host of the tool's source
}

type breakerEntry struct {
	key breakerKey
	cb  *gobreaker.TwoStepCircuitBreaker[struct{}]
}

// NewBreakers returns an empty registry.
func NewBreakers() *Breakers {
	return &Breakers{tools: map[string]*breakerEntry{}}
}

// adopt gives every tool of a newly compiled executor its breaker, reused
// or fresh, and makes these tools the registry's whole content. It runs
// last in New, once every tool is compiled or withheld: a withheld tool
// keeps no breaker.
func (b *Breakers) adopt(tools map[string]*tool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	next := make(map[string]*breakerEntry, len(tools))
	for name, t := range tools {
		key := breakerKeyOf(t.policy.Breaker, t.source.scheme+"://"+t.source.host)
		e, ok := b.tools[name]
		if !ok || e.key != key {
			e = &breakerEntry{key: key, cb: newBreaker(name, key)}
		}
		next[name] = e
		t.breaker = e.cb
	}
	b.tools = next
}

// State reports the breaker state of a tool of the newest executor built
// with this registry: BreakerClosed, BreakerHalfOpen or BreakerOpen. ok is
// false for a tool the registry does not hold.
func (b *Breakers) State(name string) (state string, ok bool) {
	b.mu.Lock()
	e, ok := b.tools[name]
	b.mu.Unlock()
	if !ok {
		return "", false
	}
	return e.cb.State().String(), true
}

// errExcluded marks attempt outcomes the breaker must not count (R7: 4xx
// client and auth failures, cancellations, attempts cut short by the call's
// own deadline).
var errExcluded = errors.New("not counted by the circuit breaker")

// errFailure marks attempt outcomes that count as a failure.
var errFailure = errors.New("transient failure")

// newBreaker builds the breaker of one tool with gobreaker's two-step form:
// Allow is called once per attempt (so failed retry attempts count, R7),
// MaxRequests 1 lets exactly one probe through in half-open state even under
// concurrency (the half-open check and the request count share one mutex),
// and IsExcluded keeps 4xx from counting either way.
func newBreaker(name string, k breakerKey) *gobreaker.TwoStepCircuitBreaker[struct{}] {
	threshold := uint32(k.threshold)
	return gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        name,
		MaxRequests: 1,
		Timeout:     k.reset,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= threshold },
		IsExcluded:  func(err error) bool { return errors.Is(err, errExcluded) },
	})
}

// breakerKeyOf is the key of a tool's effective breaker settings (a
// threshold below 1 would never trip; gobreaker needs at least 1).
func breakerKeyOf(b policy.Breaker, origin string) breakerKey {
	return breakerKey{threshold: max(b.Threshold, 1), reset: time.Duration(b.ResetMS) * time.Millisecond, origin: origin}
}
