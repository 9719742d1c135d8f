package runtime

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"log/slog"

	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

func TestRetryDelay(t *testing.T) {
	for _, tt := range []struct {
		failures   int
		poll, want time.Duration
	}{
		{1, 30 * time.Second, time.Second},
		{2, 30 * time.Second, 2 * time.Second},
		{3, 30 * time.Second, 4 * time.Second},
		{5, 30 * time.Second, 16 * time.Second},
		{6, 30 * time.Second, 30 * time.Second},
		{1000, 30 * time.Second, 30 * time.Second},
		{3, 3 * time.Second, 3 * time.Second},
		{1, 20 * time.Millisecond, 20 * time.Millisecond},
	} {
		if got := retryDelay(tt.failures, tt.poll); got != tt.want {
			t.Errorf("retryDelay(%d, %s) = %s, want %s", tt.failures, tt.poll, got, tt.want)
		}
	}
}

// scriptedSource fails the fetches fail says, serves signed otherwise, and
// records when it was asked.
type scriptedSource struct {
	mu     sync.Mutex
	at     []time.Time
	fail   func(n int) bool
	signed []byte
}

func (s *scriptedSource) fetchBundle(context.Context, fetchRequest) (fetched, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.at = append(s.at, time.Now())
	if s.fail(len(s.at)) {
		return fetched{}, errors.New("fetch bundle: 401 Unauthorized")
	}
	return fetched{signed: s.signed, etag: `"e"`}, nil
}

// Run retries a failed fetch after 1 s, 2 s, 4 s … up to the poll interval
// while it has no bundle, polls at the interval once it has one, and starts
// again at 1 s after a failure; its log says when it serves nothing.
func TestRunRetriesWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := testKey(t, 1)
		var logs syncbuf.Buffer
		r, err := New(Options{ConsoleURL: "http://127.0.0.1:1", Token: testToken, DataDir: t.TempDir(), TrustedKeys: keySet(k),
			PollInterval: 30 * time.Second, Rand: func() float64 { return 0.5 }, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		src := &scriptedSource{fail: func(n int) bool { return n <= 5 || n == 7 },
			signed: signBundle(t, k, 1, time.Now(), 0, "https://api.example.com", getOrderTool())}
		r.source = src
		start := time.Now()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); _ = r.Run(ctx) }()
		time.Sleep(62*time.Second + time.Millisecond)
		synctest.Wait()
		cancel()
		<-done

		var got []time.Duration
		for _, at := range src.at {
			got = append(got, at.Sub(start))
		}
		want := []time.Duration{0, 1, 3, 7, 15, 31, 61, 62} // seconds: 1, 2, 4, 8, 16, the poll (30), 1 again
		if len(got) != len(want) {
			t.Fatalf("fetches at %v, want at %v seconds", got, want)
		}
		for i := range want {
			if got[i] != want[i]*time.Second {
				t.Fatalf("fetches at %v, want at %v seconds", got, want)
			}
		}
		if v := r.Status().Version; v != 1 {
			t.Errorf("serving v%d, want v1", v)
		}
		out := logs.String()
		if n := strings.Count(out, `msg="serving no tools: no bundle yet"`); n != 5 {
			t.Errorf("%d lines say the runtime serves nothing, want 5: %s", n, out)
		}
		if !strings.Contains(out, "retry_in=1s") || !strings.Contains(out, "retry_in=16s") ||
			!strings.Contains(out, `msg="bundle sync failed; serving the last good bundle"`) {
			t.Errorf("log lacks the retry delays or the last-good line: %s", out)
		}
	})
}
