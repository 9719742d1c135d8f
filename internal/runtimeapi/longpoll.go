package runtimeapi

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/internal/store"
)

// Long polling, as OPA's bundle service does it: a conditional GET of
// the bundle (or the keys) that sends `Prefer: wait=N` (RFC 7240, N in
// seconds) is not answered 304 at once when nothing changed; the console
// holds it until a newer version is there (then 200 with it) or N seconds
// have passed (then 304), N bounded by Config.LongPollMax. Every answer to
// such a request carries `Preference-Applied: wait=M`, M the wait the
// console applied, which is how a runtime tells a console that long polls
// from an older one (which ignores Prefer and answers at once).
//
// A waiter costs its connection and its goroutine, a timer and a select
// on one channel every waiter shares (changes): no per-waiter state in
// the console, nothing in the database. What wakes them: this process's
// publish, rollback or key change (store.DB.Changed), another console's
// on the same PostgreSQL database (store.DB.ListenChanges, LISTEN/NOTIFY),
// and the database poll that finds a version another process published
// on SQLite (the CLI).
const (
	headerPrefer            = "Prefer"
	headerPreferenceApplied = "Preference-Applied"
	// DefaultLongPollMax is Config.LongPollMax when zero: below the
	// listeners' one-minute write timeout, with room to send a bundle.
	DefaultLongPollMax = 30 * time.Second
)

// preferWait reads the wait preference of a Prefer header value (e.g.
// "wait=10" or "respond-async, wait=10"), in whole seconds, bounded by
// limit; 0 when there is none, it is not a number, or limit is 0.
func preferWait(v string, limit time.Duration) time.Duration {
	if v == "" || limit <= 0 {
		return 0
	}
	for v != "" {
		var pref string
		pref, v, _ = strings.Cut(v, ",")
		pref, _, _ = strings.Cut(pref, ";") // preference parameters: none defined for wait
		name, val, ok := strings.Cut(strings.TrimSpace(pref), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "wait") {
			continue
		}
		n, err := strconv.ParseUint(strings.Trim(strings.TrimSpace(val), `"`), 10, 32)
		if err != nil || n == 0 {
			return 0
		}
		return min(time.Duration(n)*time.Second, limit)
	}
	return 0
}

// appliedValue is the Preference-Applied value for a wait.
func appliedValue(wait time.Duration) string {
	return "wait=" + strconv.FormatInt(int64(wait/time.Second), 10)
}

// longPoll is the Service's waiting machinery.
type longPoll struct {
	max time.Duration
	// changes is closed and replaced on every change that may matter to a
	// waiter; each waiter checks again what it waits for.
	changes atomic.Pointer[chan struct{}]
	mu      sync.Mutex // serialises wake
	// quit ends every wait at once (StopWaiting, at shutdown).
	quit     chan struct{}
	quitOnce sync.Once
	waiters  atomic.Int64
	// watchers are the goroutines that turn store signals into wakes.
	watchers sync.WaitGroup
}

func newLongPoll(limit time.Duration) *longPoll {
	lp := &longPoll{max: limit, quit: make(chan struct{})}
	if lp.max == 0 {
		lp.max = DefaultLongPollMax
	}
	ch := make(chan struct{})
	lp.changes.Store(&ch)
	return lp
}

// wake tells every waiter to check again.
func (lp *longPoll) wake() {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	next := make(chan struct{})
	close(*lp.changes.Swap(&next))
}

// await waits until done reports true (checked at once and after every
// wake), wait passes, ctx ends or the service stops waiting; it reports
// whether done did.
func (lp *longPoll) await(ctx context.Context, wait time.Duration, done func() bool) bool {
	lp.waiters.Add(1)
	defer lp.waiters.Add(-1)
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		ch := *lp.changes.Load() // before checking: a change in between closes it
		if done() {
			return true
		}
		select {
		case <-ch:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		case <-lp.quit:
			return false
		}
	}
}

// StopWaiting ends every long poll at once (answered 304) and every later
// one without waiting: for shutdown, so that held requests do not keep a
// listener from stopping. serve calls it when it begins to shut down.
func (s *Service) StopWaiting() { s.poll.quitOnce.Do(func() { close(s.poll.quit) }) }

// LongPollWaiters is how many requests are waiting now.
func (s *Service) LongPollWaiters() int { return int(s.poll.waiters.Load()) }

// awaitBundle holds a conditional bundle request whose ETag (inm, in the
// form for schemas) is current until it is not, or wait passes. It
// returns the bundle to answer with, and whether it changed.
func (s *Service) awaitBundle(ctx context.Context, inm, schemas string, wait time.Duration) (*servedBundle, bool) {
	var cur *servedBundle
	changed := s.poll.await(ctx, wait, func() bool {
		b, err := s.state.current(ctx)
		if err != nil || b.version == 0 {
			return false // answered as it stands when the wait ends
		}
		cur = b.formFor(schemas)
		return !cur.notModified(inm)
	})
	return cur, changed
}

// startLongPoll registers the waiters gauge and starts the goroutines that
// wake waiters: on this process's changes, and on other consoles' when the
// database is PostgreSQL. They end with ctx; Close waits for them.
func (s *Service) startLongPoll(ctx context.Context) {
	s.metrics.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "toolgate_console_long_poll_waiters",
		Help: "Bundle and key requests held open waiting for a change (Prefer: wait)."},
		func() float64 { return float64(s.poll.waiters.Load()) }))
	s.poll.watchers.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.db.Changed():
				s.refreshAndWake(ctx)
			}
		}
	})
	s.poll.watchers.Go(func() {
		err := s.db.ListenChanges(ctx, func() { s.refreshAndWake(ctx) }, func(err error) {
			s.log.Warn("runtime API: listening for other consoles' changes failed; retrying (the database poll still runs)", "err", err)
		})
		if err != nil && !errors.Is(err, store.ErrNoListen) {
			s.log.Warn("runtime API: not listening for other consoles' changes", "err", err)
		}
	})
}

// refreshAndWake reloads the current bundle (a change may have come from
// another process, which current() would not notice) and wakes every
// waiter.
func (s *Service) refreshAndWake(ctx context.Context) {
	if _, err := s.state.refreshBundle(ctx); err != nil && ctx.Err() == nil {
		s.log.Warn("runtime API: reloading the bundle after a change", "err", err)
	}
	s.poll.wake()
}

// pollAndWake is the database poll: it wakes waiters when it found a
// version another process published.
func (s *Service) pollAndWake(ctx context.Context) error {
	before := s.state.bundle.Load()
	err := s.state.poll(ctx)
	if s.state.bundle.Load().version != before.version {
		s.poll.wake()
	}
	return err
}
