package sampleapi

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults are the fault switches of the sample API. Counted switches are
// consumed one API request at a time and switch themselves off at zero. The
// JSON form is what POST /_faults accepts and GET /_faults returns.
type Faults struct {
	// FailNext answers the next Count API requests with Status (default 503)
	// without running them: a 5xx burst.
	FailNext *FailNext `json:"fail_next,omitempty"`
	// DelayMS delays every API response by this many milliseconds.
	DelayMS int `json:"delay_ms,omitempty"`
	// RateLimit answers the next Count API requests with 429 and a
	// Retry-After of RetryAfterS seconds, without running them.
	RateLimit *RateLimit `json:"rate_limit,omitempty"`
	// DropAfterApply runs the next Count matching requests — the mutation
	// really happens — then closes the connection without any response: the
	// "lost response" case.
	DropAfterApply *DropAfterApply `json:"drop_after_apply,omitempty"`
}

// FailNext is the 5xx-burst switch.
type FailNext struct {
	Count  int `json:"count"`
	Status int `json:"status,omitempty"`
}

// RateLimit is the 429 switch.
type RateLimit struct {
	Count       int `json:"count"`
	RetryAfterS int `json:"retry_after_s"`
}

// DropAfterApply is the lost-response switch. An empty Method matches every
// method.
type DropAfterApply struct {
	Count  int    `json:"count"`
	Method string `json:"method,omitempty"`
}

// maxDelayMS bounds delay_ms so a typo cannot hang a test run for hours.
const maxDelayMS = 120_000

// Validate reports every switch that is out of range, joined into one error.
func (f Faults) Validate() error {
	var errs []error
	if f.DelayMS < 0 || f.DelayMS > maxDelayMS {
		errs = append(errs, fmt.Errorf("delay_ms must be within 0..%d, got %d", maxDelayMS, f.DelayMS))
	}
	if n := f.FailNext; n != nil {
		if n.Count < 0 {
			errs = append(errs, fmt.Errorf("fail_next.count must not be negative, got %d", n.Count))
		}
		if n.Status != 0 && (n.Status < 400 || n.Status > 599) {
			errs = append(errs, fmt.Errorf("fail_next.status must be a 4xx or 5xx status, got %d", n.Status))
		}
	}
	if rl := f.RateLimit; rl != nil && (rl.Count < 0 || rl.RetryAfterS < 0) {
		errs = append(errs, fmt.Errorf("rate_limit.count and rate_limit.retry_after_s must not be negative"))
	}
	if d := f.DropAfterApply; d != nil {
		if d.Count < 0 {
			errs = append(errs, fmt.Errorf("drop_after_apply.count must not be negative, got %d", d.Count))
		}
		if strings.ContainsAny(d.Method, " /\t") {
			errs = append(errs, fmt.Errorf("drop_after_apply.method %q is not an HTTP method", d.Method))
		}
	}
	return errors.Join(errs...)
}

// normalize fills defaults and drops switches whose count is spent, so that
// GET /_faults shows only what is still armed.
func (f Faults) normalize() Faults {
	if f.FailNext != nil {
		n := *f.FailNext
		if n.Status == 0 {
			n.Status = http.StatusServiceUnavailable
		}
		f.FailNext = nilIfSpent(&n, n.Count)
	}
	if f.RateLimit != nil {
		rl := *f.RateLimit
		f.RateLimit = nilIfSpent(&rl, rl.Count)
	}
	if f.DropAfterApply != nil {
		d := *f.DropAfterApply
		d.Method = strings.ToUpper(d.Method)
		f.DropAfterApply = nilIfSpent(&d, d.Count)
	}
	return f
}

func nilIfSpent[T any](p *T, count int) *T {
	if count <= 0 {
		return nil
	}
	return p
}

// faultsPatch is the body of POST /_faults: switches that are present replace
// the current ones, absent ones stay as they are (send a count of 0 to
// switch one off, or DELETE /_faults to reset all).
type faultsPatch struct {
	FailNext       *FailNext       `json:"fail_next"`
	DelayMS        *int            `json:"delay_ms"`
	RateLimit      *RateLimit      `json:"rate_limit"`
	DropAfterApply *DropAfterApply `json:"drop_after_apply"`
}

// faultState holds the live switches.
type faultState struct {
	mu sync.Mutex
	f  Faults
}

func newFaultState(f Faults) *faultState { return &faultState{f: f.normalize()} }

func (fs *faultState) get() Faults {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.f.normalize() // normalize copies the switches
}

func (fs *faultState) set(f Faults) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.f = f.normalize()
}

// apply merges p into the live switches and returns the result.
func (fs *faultState) apply(p faultsPatch) (Faults, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	next := fs.f
	if p.FailNext != nil {
		next.FailNext = p.FailNext
	}
	if p.DelayMS != nil {
		next.DelayMS = *p.DelayMS
	}
	if p.RateLimit != nil {
		next.RateLimit = p.RateLimit
	}
	if p.DropAfterApply != nil {
		next.DropAfterApply = p.DropAfterApply
	}
	if err := next.Validate(); err != nil {
		return Faults{}, err
	}
	fs.f = next.normalize()
	return fs.f.normalize(), nil
}

func (fs *faultState) delay() time.Duration {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return time.Duration(fs.f.DelayMS) * time.Millisecond
}

// takeRateLimit consumes one rate-limited response, returning its Retry-After.
func (fs *faultState) takeRateLimit() (string, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	rl := fs.f.RateLimit
	if rl == nil || rl.Count <= 0 {
		return "", false
	}
	rl.Count--
	fs.f = fs.f.normalize()
	return strconv.Itoa(rl.RetryAfterS), true
}

// takeFailNext consumes one injected failure, returning its status.
func (fs *faultState) takeFailNext() (int, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.f.FailNext
	if n == nil || n.Count <= 0 {
		return 0, false
	}
	n.Count--
	fs.f = fs.f.normalize()
	return n.Status, true
}

// takeDrop consumes one dropped response if method matches.
func (fs *faultState) takeDrop(method string) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	d := fs.f.DropAfterApply
	if d == nil || d.Count <= 0 || (d.Method != "" && d.Method != method) {
		return false
	}
	d.Count--
	fs.f = fs.f.normalize()
	return true
}

// dropConnection closes the client's connection without writing a response.
// Hijacking gives a real TCP close (with linger 0, a reset, as when a proxy or
// the process dies); where the connection cannot be hijacked (HTTP/2),
// ErrAbortHandler makes net/http abort the stream instead.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// SetFaults replaces every fault switch (Go tests' equivalent of
// DELETE then POST /_faults). It panics on an invalid f, which is a bug in
// the calling test.
func (s *Server) SetFaults(f Faults) {
	if err := f.Validate(); err != nil {
		panic(fmt.Sprintf("sampleapi.SetFaults: %v", err))
	}
	s.faults.set(f)
}

// Faults returns the switches that are still armed.
func (s *Server) Faults() Faults { return s.faults.get() }

// ResetFaults switches every fault off.
func (s *Server) ResetFaults() { s.faults.set(Faults{}) }

func (s *Server) getFaults(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.faults.get())
}

func (s *Server) postFaults(w http.ResponseWriter, r *http.Request) {
	var p faultsPatch
	if err := decodeJSON(r, &p); err != nil {
		s.render(w, r, err)
		return
	}
	f, err := s.faults.apply(p)
	if err != nil {
		s.render(w, r, errf(http.StatusUnprocessableEntity, codeInvalid, "%v", err))
		return
	}
	s.log.InfoContext(r.Context(), "sample-api faults set", "faults", f)
	writeJSON(w, http.StatusOK, f)
}

func (s *Server) deleteFaults(w http.ResponseWriter, r *http.Request) {
	s.ResetFaults()
	s.log.InfoContext(r.Context(), "sample-api faults reset")
	writeJSON(w, http.StatusOK, Faults{})
}
