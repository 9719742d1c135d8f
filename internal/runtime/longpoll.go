package runtime

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Long polling (the console's runtime API, README "Runtime API"): the
// fetch loop asks the console to hold its conditional bundle request for
// up to a poll interval (Prefer: wait=N, RFC 7240), and the console
// answers as soon as a newer version is published, or with 304 when the
// wait ends. A console that long polls says so on every answer
// (Preference-Applied: wait=M); then the next fetch starts at once, so
// a change reaches the runtime within a round trip instead of within a
// poll interval. A console from before long polling ignores Prefer and
// answers at once without Preference-Applied: the loop then waits its
// jittered interval, as it always has. Errors back off as before
// (retryDelay), whichever console it is.
const (
	headerPrefer            = "Prefer"
	headerPreferenceApplied = "Preference-Applied"
)

// earlyRetry is how long the loop waits after a held request the console
// answered 304 long before the wait it applied (a console shutting down,
// or a proxy cutting the request short): short, so a restarted console is
// asked again soon, but never a tight loop.
const earlyRetry = time.Second

// longPoll asks the console to hold req for up to wait (whole seconds;
// nothing below one: a poll that short needs no holding) and returns the client to send it with: the runtime's own,
// its timeout lengthened by the wait, so a held request is not cut off.
func (c *console) longPoll(req *http.Request, wait time.Duration) *http.Client {
	secs := int64(wait / time.Second)
	if secs <= 0 {
		return c.httpClient
	}
	req.Header.Set(headerPrefer, "wait="+strconv.FormatInt(secs, 10))
	if c.httpClient.Timeout == 0 {
		return c.httpClient
	}
	held := *c.httpClient // shares the transport and its connections
	held.Timeout += time.Duration(secs) * time.Second
	return &held
}

// appliedWait reads Preference-Applied: wait=M; 0 without it.
func appliedWait(v string) time.Duration {
	for v != "" {
		var pref string
		pref, v, _ = strings.Cut(v, ",")
		name, val, ok := strings.Cut(strings.TrimSpace(pref), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "wait") {
			continue
		}
		if n, err := strconv.ParseUint(strings.Trim(strings.TrimSpace(val), `"`), 10, 32); err == nil {
			return time.Duration(n) * time.Second
		}
	}
	return 0
}

// pollWait is how long the next fetch asks the console to hold it: a
// jittered poll interval, cut at the moment the bundle in force turns
// stale or expires (the loop must reconcile then). 0 from a registry,
// which cannot hold a request. It is asked for without a bundle too (the
// console holds only a conditional request whose ETag is current), so
// the first answer already says whether the console long polls.
func (r *Runtime) pollWait() time.Duration {
	if r.registry != nil {
		return 0
	}
	wait := r.nextInterval()
	if b, ok := r.nextBoundary(); ok && b < wait {
		wait = b
	}
	return wait
}

// syncOnce is one fetch of the loop and when the next one is due: at
// once after a request the console held (or answered with a change),
// earlyRetry after one it cut short, a jittered interval after an answer
// from a console that does not long poll, and retryDelay's backoff after
// a failure or without a bundle.
func (r *Runtime) syncOnce(ctx context.Context, failures *int) time.Duration {
	before := r.snap.Load()
	start := time.Now() // the wall clock: how long the request was held, not the runtime's (test) clock
	var held time.Duration
	err := r.syncWaiting(ctx, r.pollWait(), &held)
	if err != nil || r.snap.Load() == nil {
		*failures++
		wait := retryDelay(*failures, r.opts.PollInterval)
		r.logSyncFailure(err, wait)
		return wait
	}
	*failures = 0
	switch {
	case held == 0:
		return r.nextInterval()
	case r.snap.Load() != before || time.Since(start) >= held/2:
		return 0
	default:
		return earlyRetry
	}
}
