package web

import (
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/store"
)

// Headers runtimes identify themselves with on every fetch.
const (
	headerRuntimeName   = "X-Toolgate-Runtime-Name"
	headerInstanceID    = "X-Toolgate-Instance-Id"
	headerBundleVersion = "X-Toolgate-Bundle-Version"
)

// fleetWriteEvery bounds database writes per instance: a fetch that changes
// nothing (same name, version, token) is written at most this often. The
// Runtimes page measures staleness in minutes, so this loses nothing, and
// it keeps the 304 path a read.
const fleetWriteEvery = 30 * time.Second

// fleetMaxTracked caps the in-memory table; when full it starts over
// (costing one write per instance), so a token holder inventing instance
// ids cannot grow memory without bound.
const fleetMaxTracked = 10000

// fleetRecorder writes runtime fetches to the store, rate-limited.
type fleetRecorder struct {
	db  *store.DB
	log *slog.Logger
	mu  sync.Mutex
	// last is the last write per instance id ("token:<id>" for fetches
	// without one).
	last map[string]store.RuntimeFetch
	at   map[string]time.Time
}

func newFleetRecorder(db *store.DB, log *slog.Logger) *fleetRecorder {
	return &fleetRecorder{db: db, log: log, last: map[string]store.RuntimeFetch{}, at: map[string]time.Time{}}
}

// record notes a fetch by token from c's identification headers. A failed
// write is logged, never fails the fetch: serving the bundle matters more.
func (f *fleetRecorder) record(c echo.Context, tokenID int64) {
	h := c.Request().Header
	fetch := store.RuntimeFetch{TokenID: tokenID, InstanceID: cleanHeader(h.Get(headerInstanceID)),
		Name: cleanHeader(h.Get(headerRuntimeName)), RemoteAddr: c.RealIP()}
	if v, err := strconv.ParseInt(h.Get(headerBundleVersion), 10, 64); err == nil && v > 0 {
		fetch.Version = v
	}
	key := fetch.InstanceID
	if key == "" {
		key = "token:" + strconv.FormatInt(tokenID, 10)
	}
	now := time.Now()
	f.mu.Lock()
	if prev, ok := f.last[key]; ok && prev == fetch && now.Sub(f.at[key]) < fleetWriteEvery {
		f.mu.Unlock()
		return
	}
	if len(f.last) >= fleetMaxTracked {
		clear(f.last)
		clear(f.at)
	}
	f.last[key], f.at[key] = fetch, now
	f.mu.Unlock()
	if err := f.db.RecordRuntimeFetch(c.Request().Context(), fetch); err != nil {
		f.log.Warn("recording runtime fetch", "instance", fetch.InstanceID, "err", err)
		f.mu.Lock()
		delete(f.last, key) // try again on the next fetch
		f.mu.Unlock()
	}
}

// cleanHeader keeps an identification header printable and short: it is
// shown on the Runtimes page (escaped by templ, but still no control
// characters or megabyte names).
func cleanHeader(v string) string {
	out := make([]rune, 0, len(v))
	for _, r := range v {
		if unicode.IsPrint(r) {
			out = append(out, r)
		}
		if len(out) == 128 {
			break
		}
	}
	return string(out)
}
