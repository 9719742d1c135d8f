package executor

import (
	"context"
	"time"
)

// Clock is the executor's source of time. Tests inject a fake one so that
// deadline and backoff behaviour can be checked without real waiting.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx is done, in which case it returns
	// ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
