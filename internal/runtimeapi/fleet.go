package runtimeapi

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/store"
)

// Headers runtimes identify themselves with on every fetch.
const (
	headerRuntimeName   = "X-Toolgate-Runtime-Name"
	headerInstanceID    = "X-Toolgate-Instance-Id"
	headerBundleVersion = "X-Toolgate-Bundle-Version"
	// headerRefused is the runtime's last bundle refusal ("withheld N
	// tools: name: reason; …" or why it refused a bundle), absent when none.
	headerRefused = "X-Toolgate-Refused"
)

// maxRefusedBytes bounds the recorded refusal (the runtime sends at most
// this much; a longer header is cut).
const maxRefusedBytes = 512

// Fleet write pacing. Fetches are recorded in memory and flushed in one
// transaction every fleetFlushEvery, so each instance costs at most one
// row write per flush; an instance whose report did not change (only its
// last-seen time moved) is written at most every fleetWriteEvery. The
// Runtimes page measures staleness in minutes, so this loses nothing.
const (
	fleetFlushEvery = 5 * time.Second
	fleetWriteEvery = 30 * time.Second
)

// fleetMaxPending caps the fetches waiting for the next flush, and
// fleetMaxTracked the remembered last writes (when full it starts over,
// costing one write per instance): a token holder inventing instance ids
// cannot grow memory without bound. The database side is bounded per token
// (store.DefaultInstancesPerToken).
const (
	fleetMaxPending = 10000
	fleetMaxTracked = 20000
)

// fleetKey is an instance as the database keys it: owned by its token.
type fleetKey struct {
	token    int64
	instance string // "" for fetches without an instance id: the token's last use only
}

type fleetWrite struct {
	fetch store.RuntimeFetch // At and RemoteAddr zeroed: what was reported
	at    time.Time
}

// fleetRecorder batches runtime fetches into periodic database writes.
type fleetRecorder struct {
	db       *store.DB
	log      *slog.Logger
	metrics  *apiMetrics
	perToken int
	now      func() time.Time
	mu       sync.Mutex
	pending  map[fleetKey]store.RuntimeFetch
	written  map[fleetKey]fleetWrite
	// flushMu makes flushes one at a time (the ticker and Close).
	flushMu sync.Mutex
}

func newFleetRecorder(db *store.DB, log *slog.Logger, m *apiMetrics) *fleetRecorder {
	return &fleetRecorder{db: db, log: log, metrics: m, perToken: store.DefaultInstancesPerToken, now: func() time.Time { return db.Now() },
		pending: map[fleetKey]store.RuntimeFetch{}, written: map[fleetKey]fleetWrite{}}
}

// fetchReport is what a runtime's request says about it: its
// identification headers and where it came from, as strings, whichever
// HTTP stack read them. On the fasthttp listener they are borrowed from
// the request's buffer (see borrow): valid only while the request is
// served, so record copies whatever it keeps.
type fetchReport struct {
	instance, name, version, refused string
	schemas                          string     // headerBundleSchemas
	remote                           string     // host only, from net/http
	remoteIP                         netip.Addr // from fasthttp, made text only when written
}

// reportOf reads r's identification headers; it allocates nothing.
func reportOf(r *http.Request) fetchReport {
	h := r.Header
	remote, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		remote = r.RemoteAddr
	}
	return fetchReport{instance: headerValue(h, headerInstanceID), name: headerValue(h, headerRuntimeName),
		version: headerValue(h, headerBundleVersion), refused: headerValue(h, headerRefused),
		schemas: headerValue(h, headerBundleSchemas), remote: remote}
}

// record notes a fetch by token, in memory. An unchanged report of a
// recently written instance (the common case: a runtime polling)
// allocates nothing. The address the fetch came from is not part of the
// report compared: an instance that only moved is written with its new
// address within fleetWriteEvery, like any instance still polling.
func (f *fleetRecorder) record(tokenID int64, rep fetchReport) {
	fetch := store.RuntimeFetch{TokenID: tokenID, InstanceID: cleanHeader(rep.instance, 128),
		Name: cleanHeader(rep.name, 128), Refused: cleanHeader(rep.refused, maxRefusedBytes),
		Schemas: cleanHeader(rep.schemas, 128)}
	fetch.Version = reportedVersion(rep.version)
	key := fleetKey{token: tokenID, instance: fetch.InstanceID}
	now := f.now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if w, ok := f.written[key]; ok && w.fetch == fetch && now.Sub(w.at) < fleetWriteEvery {
		if _, waiting := f.pending[key]; !waiting {
			return
		}
	}
	if _, ok := f.pending[key]; !ok && len(f.pending) >= fleetMaxPending {
		f.metrics.fleetDropped.Inc()
		return
	}
	fetch.At = now
	fetch.InstanceID, fetch.Name = strings.Clone(fetch.InstanceID), strings.Clone(fetch.Name)
	fetch.RemoteAddr, fetch.Refused = strings.Clone(rep.remote), strings.Clone(fetch.Refused)
	fetch.Schemas = strings.Clone(fetch.Schemas)
	if fetch.RemoteAddr == "" && rep.remoteIP.IsValid() {
		fetch.RemoteAddr = rep.remoteIP.Unmap().String()
	}
	f.pending[fleetKey{token: tokenID, instance: fetch.InstanceID}] = fetch
}

// flush writes the pending fetches in one transaction. A failed write is
// logged and kept for the next flush, never fails a fetch: serving the
// bundle matters more.
func (f *fleetRecorder) flush(ctx context.Context) {
	f.flushMu.Lock()
	defer f.flushMu.Unlock()
	f.mu.Lock()
	batch := f.pending
	f.pending = map[fleetKey]store.RuntimeFetch{}
	f.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	fetches := make([]store.RuntimeFetch, 0, len(batch))
	for _, fe := range batch {
		fetches = append(fetches, fe)
	}
	evicted, err := f.db.RecordRuntimeFetches(ctx, fetches, f.perToken)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.metrics.fleetFailures.Inc()
		f.log.Warn("recording runtime fetches", "count", len(batch), "err", err)
		for k, fe := range batch {
			if _, newer := f.pending[k]; !newer {
				f.pending[k] = fe
			}
		}
		return
	}
	f.metrics.fleetWrites.Add(float64(len(batch)))
	f.metrics.fleetEvicted.Add(float64(evicted))
	if len(f.written)+len(batch) > fleetMaxTracked {
		clear(f.written)
	}
	for k, fe := range batch {
		at := fe.At
		fe.At, fe.RemoteAddr = time.Time{}, ""
		f.written[k] = fleetWrite{fetch: fe, at: at}
	}
}

// reportedVersion is the bundle version a runtime reports, 0 when absent
// or not a positive number. Only digit strings reach strconv: a fetch
// without the header (curl, a probe) or with junk in it is answered on the
// 304 path too, and a parse error would allocate on every such request.
func reportedVersion(v string) int64 {
	if v == "" || len(v) > 18 {
		return 0
	}
	for i := range len(v) {
		if v[i] < '0' || v[i] > '9' {
			return 0
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// cleanHeader keeps an identification header printable and at most max
// bytes (cut at a character boundary): it is shown on the Runtimes page
// (escaped by templ, but still no control characters or megabyte names).
func cleanHeader(v string, max int) string {
	if len(v) <= max && printable(v) {
		return v
	}
	out := make([]byte, 0, min(len(v), max))
	for _, r := range v {
		if !unicode.IsPrint(r) {
			continue
		}
		if len(out)+utf8.RuneLen(r) > max {
			break
		}
		out = utf8.AppendRune(out, r)
	}
	return string(out)
}

func printable(v string) bool {
	ascii := true
	for i := range len(v) {
		if c := v[i]; c < 0x20 || c > 0x7e {
			ascii = false
			break
		}
	}
	if ascii {
		return true // what runtimes send: no decoding needed
	}
	if !utf8.ValidString(v) {
		return false
	}
	for _, r := range v {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
