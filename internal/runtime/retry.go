package runtime

import (
	"errors"
	"time"
)

// firstRetry is the delay before the first retry of a failed fetch.
const firstRetry = time.Second

// retryDelay is how long to wait after the failures-th failed fetch in a
// row: 1 s, 2 s, 4 s …, never more than the poll interval.
func retryDelay(failures int, poll time.Duration) time.Duration {
	d := firstRetry
	for i := 1; i < failures && d < poll; i++ {
		d *= 2
	}
	return min(d, poll)
}

// logSyncFailure says what the runtime serves after a fetch that failed or
// brought no bundle: the last good bundle, or nothing at all.
func (r *Runtime) logSyncFailure(err error, retry time.Duration) {
	if v := r.Status().Version; v > 0 {
		r.log.Warn("bundle sync failed; serving the last good bundle", "err", err, "version", v, "retry_in", retry)
		return
	}
	if err == nil {
		err = errors.New("no bundle")
	}
	r.log.Warn("serving no tools: no bundle yet", "err", err, "retry_in", retry)
}
