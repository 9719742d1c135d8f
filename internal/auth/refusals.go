package auth

import (
	"sync"
	"time"
)

// RefusedSignIns summarises the sign-ins refused before any password check (the
// throttle's 429) for one account, client address and reason in one
// window: how many, and when the first and the last came.
type RefusedSignIns struct {
	Account, Address, Reason string
	Count                    int
	First, Last              time.Time
}

// Account and address of the summary that counts the refusals of a window
// past RefusalTally's MaxKeys distinct (account, address, reason).
const (
	ManyAccounts  = "(many accounts)"
	ManyAddresses = "(many addresses)"
)

type refusalKey struct{ account, address, reason string }

// RefusalTally counts refused sign-ins in memory, so that a flood of them
// costs the audit log one summary per (account, address, reason) and
// window instead of a row each (R12 still records every one, by count).
// A window opens at the first refusal after the last one closed and
// closes Window later; at most MaxKeys distinct keys are kept per window,
// the rest counted together under ManyAccounts/ManyAddresses. The caller
// takes closed windows' summaries (Due) and writes them, and everything at
// shutdown (Drain). Safe for concurrent use.
type RefusalTally struct {
	window  time.Duration
	maxKeys int

	mu     sync.Mutex
	opened time.Time // zero: no window open
	counts map[refusalKey]*RefusedSignIns
	order  []refusalKey // first-refusal order, for stable summaries
}

// NewRefusalTally returns a tally with the given window (at least a
// second) and key bound (at least one).
func NewRefusalTally(window time.Duration, maxKeys int) *RefusalTally {
	return &RefusalTally{window: max(window, time.Second), maxKeys: max(maxKeys, 1), counts: map[refusalKey]*RefusedSignIns{}}
}

// Window is how long a window stays open.
func (t *RefusalTally) Window() time.Duration { return t.window }

// Add counts one refusal at now.
func (t *RefusalTally) Add(account, address, reason string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.opened.IsZero() {
		t.opened = now
	}
	k := refusalKey{account, address, reason}
	r, ok := t.counts[k]
	if !ok && len(t.counts) >= t.maxKeys {
		k = refusalKey{ManyAccounts, ManyAddresses, reason}
		r, ok = t.counts[k]
	}
	if !ok {
		r = &RefusedSignIns{Account: k.account, Address: k.address, Reason: k.reason, First: now}
		t.counts[k] = r
		t.order = append(t.order, k)
	}
	r.Count++
	r.Last = now
}

// Due returns the summaries of the open window when it has closed by now
// (and starts afresh), else nothing.
func (t *RefusalTally) Due(now time.Time) []RefusedSignIns {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.opened.IsZero() || now.Sub(t.opened) < t.window {
		return nil
	}
	return t.takeLocked()
}

// Drain returns the summaries of the open window, closed or not, and
// starts afresh.
func (t *RefusalTally) Drain() []RefusedSignIns {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.takeLocked()
}

func (t *RefusalTally) takeLocked() []RefusedSignIns {
	out := make([]RefusedSignIns, 0, len(t.order))
	for _, k := range t.order {
		out = append(out, *t.counts[k])
	}
	t.opened, t.counts, t.order = time.Time{}, map[refusalKey]*RefusedSignIns{}, nil
	return out
}
