package runtime

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// pollingConsole is a source that answers as a console does, with long
// polling or (old) without: a held request returns when the wait ends or
// at publish, with Preference-Applied; early makes a held request return
// at once (a console shutting down).
type pollingConsole struct {
	mu        sync.Mutex
	longPolls bool
	early     bool
	failNext  bool
	signed    []byte
	etag      string
	published chan struct{}
	at        []time.Time
	waits     []time.Duration
}

func (c *pollingConsole) publish(signed []byte, etag string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.signed, c.etag = signed, etag
	close(c.published)
	c.published = make(chan struct{})
}

func (c *pollingConsole) fetchBundle(ctx context.Context, fr fetchRequest) (fetched, error) {
	c.mu.Lock()
	c.at, c.waits = append(c.at, time.Now()), append(c.waits, fr.wait)
	if c.failNext {
		c.failNext = false
		c.mu.Unlock()
		return fetched{}, errors.New("fetch bundle: console answered 503")
	}
	var applied time.Duration
	if c.longPolls {
		applied = fr.wait.Truncate(time.Second)
	}
	if applied > 0 && fr.etag == c.etag && !c.early {
		published := c.published
		c.mu.Unlock()
		select {
		case <-time.After(applied):
		case <-published:
		case <-ctx.Done():
			return fetched{}, ctx.Err()
		}
		c.mu.Lock()
	}
	defer c.mu.Unlock()
	if fr.etag == c.etag {
		return fetched{notModified: true, etag: c.etag, applied: applied}, nil
	}
	return fetched{signed: c.signed, etag: c.etag, applied: applied}, nil
}

func (c *pollingConsole) fetchTimes(start time.Time) []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Duration
	for _, at := range c.at {
		out = append(out, at.Sub(start))
	}
	return out
}

// runAgainst runs a runtime (poll 30 s, no jitter drawn) whose bundles
// come from c, for the test's fake time.
func runAgainst(t *testing.T, c *pollingConsole) (*Runtime, func()) {
	t.Helper()
	k := testKey(t, 1)
	c.signed, c.etag, c.published = signBundle(t, k, 1, time.Now(), 0, "https://api.example.com", getOrderTool()), `"v1"`, make(chan struct{})
	r, err := New(Options{ConsoleURL: "http://127.0.0.1:1", Token: testToken, DataDir: t.TempDir(), TrustedKeys: keySet(k),
		PollInterval: 30 * time.Second, Rand: func() float64 { return 0.5 }})
	if err != nil {
		t.Fatal(err)
	}
	r.source = c
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	return r, func() { cancel(); <-done }
}

// wantTimes compares fetch times to the 100 ms (Run's loop turns in at
// least a millisecond).
func wantTimes(t *testing.T, got []time.Duration, want ...time.Duration) {
	t.Helper()
	for i := range got {
		got[i] = got[i].Round(100 * time.Millisecond)
	}
	if len(got) != len(want) {
		t.Fatalf("fetches at %v, want at %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fetches at %v, want at %v", got, want)
		}
	}
}

const s = time.Second

// TestRunLongPollsAConsoleThatOffersIt: every fetch asks to be held for a
// poll interval; against a console that holds it, the next fetch starts
// as soon as the last is answered, and a publish is in force the moment
// the console answers, not at the next poll.
func TestRunLongPollsAConsoleThatOffersIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &pollingConsole{longPolls: true}
		r, stop := runAgainst(t, c)
		start := time.Now()
		time.Sleep(45 * s)
		k := testKey(t, 1)
		c.publish(signBundle(t, k, 2, time.Now(), 0, "https://api.example.com", getOrderTool()), `"v2"`)
		synctest.Wait()
		if v := r.Status().Version; v != 2 {
			t.Fatalf("serving v%d at once after the publish, want v2", v)
		}
		time.Sleep(10 * s)
		stop()
		// 0: the first fetch (200); 0: held until 30; 30: held until the
		// publish at 45; 45: held again.
		wantTimes(t, c.fetchTimes(start), 0, 0, 30*s, 45*s)
		for i, w := range c.waits {
			if w != 30*s {
				t.Fatalf("fetch %d asked to wait %v, want the poll interval (30s)", i, w)
			}
		}
	})
}

// TestRunPollsAnOlderConsoleAtItsInterval: a console that does not long
// poll answers at once, without Preference-Applied: the runtime polls at
// its interval, as before long polling.
func TestRunPollsAnOlderConsoleAtItsInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &pollingConsole{}
		_, stop := runAgainst(t, c)
		start := time.Now()
		time.Sleep(61 * s)
		stop()
		wantTimes(t, c.fetchTimes(start), 0, 30*s, 60*s)
	})
}

// TestRunLongPollBacksOffOnErrors: a failed fetch is retried after the
// backoff (1 s), whatever the console; a held request answered long
// before its wait (a console shutting down) is asked again after a
// second, never in a tight loop.
func TestRunLongPollBacksOffOnErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &pollingConsole{longPolls: true}
		_, stop := runAgainst(t, c)
		start := time.Now()
		time.Sleep(10 * s) // the second fetch is held
		c.mu.Lock()
		c.failNext, c.early = true, true
		c.mu.Unlock()
		time.Sleep(20*s + 2500*time.Millisecond)
		stop()
		// 0 (200), 0 (held until 30), 30: fails, 31: answered early, 32, …
		wantTimes(t, c.fetchTimes(start), 0, 0, 30*s, 31*s, 32*s)
	})
}

// TestLongPollRequestHeaders: the wait is asked in whole seconds, and the
// client's timeout grows by it so a held request is not cut off.
func TestLongPollRequestHeaders(t *testing.T) {
	c := &console{httpClient: &http.Client{Timeout: 30 * s}}
	for _, tt := range []struct {
		wait    time.Duration
		prefer  string
		timeout time.Duration
	}{{0, "", 30 * s}, {900 * time.Millisecond, "", 30 * s}, {34500 * time.Millisecond, "wait=34", 64 * s}} {
		req, _ := http.NewRequest("GET", "http://console/api/v1/bundle", nil)
		client := c.longPoll(req, tt.wait)
		if got := req.Header.Get(headerPrefer); got != tt.prefer || client.Timeout != tt.timeout {
			t.Errorf("wait %v: Prefer %q timeout %v, want %q %v", tt.wait, got, client.Timeout, tt.prefer, tt.timeout)
		}
	}
	if c.httpClient.Timeout != 30*s {
		t.Fatal("the runtime's own client was changed")
	}
	for in, want := range map[string]time.Duration{"": 0, "wait=30": 30 * s, "respond-async, wait=5": 5 * s, "wait=x": 0} {
		if got := appliedWait(in); got != want {
			t.Errorf("appliedWait(%q) = %v, want %v", in, got, want)
		}
	}
}
