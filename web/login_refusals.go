package web

import (
	"context"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
)

// Sign-ins the throttle refuses are counted in memory and audited as one
// summary per account, address, reason and window (auth.RefusalTally):
// a flood of them cannot grow the audit log by a row each, nor fail
// because the disk is full (R12 still records every refusal, by count).
const (
	defaultRefusalWindow = time.Minute
	// refusalKeys bounds the summaries of one window: past it, refusals
	// are counted together (auth.ManyAccounts).
	refusalKeys = 100
)

// refusedSignIns is the tally and the loop that writes its closed windows.
type refusedSignIns struct {
	tally *auth.RefusalTally
	stop  context.CancelFunc
	done  chan struct{}
}

// startRefusedSignIns starts writing s's refused sign-ins every window.
func (s *Server) startRefusedSignIns(ctx context.Context) {
	window := s.deps.RefusalWindow
	if window <= 0 {
		window = defaultRefusalWindow
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	r := &refusedSignIns{tally: auth.NewRefusalTally(window, refusalKeys), stop: stop, done: make(chan struct{})}
	s.refused = r
	go func() {
		defer close(r.done)
		tick := time.NewTicker(max(r.tally.Window()/4, 250*time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-bg.Done():
				return
			case now := <-tick.C:
				s.writeRefusedSignIns(bg, r.tally.Due(now))
			}
		}
	}()
}

// closeRefusedSignIns stops the loop and writes what is still counted.
func (s *Server) closeRefusedSignIns(ctx context.Context) {
	s.refused.stop()
	<-s.refused.done
	s.writeRefusedSignIns(ctx, s.refused.tally.Drain())
}

// writeRefusedSignIns audits rs. A failure (a full disk, the database
// away) loses the summaries but keeps them in the log, at error level.
func (s *Server) writeRefusedSignIns(ctx context.Context, rs []auth.RefusedSignIns) {
	if err := s.deps.Store.RecordRefusedSignIns(ctx, rs); err != nil {
		total := 0
		for _, r := range rs {
			total += r.Count
		}
		s.deps.Logger.Error("auditing refused sign-ins", "err", err, "summaries", len(rs), "refusals", total)
	}
}
