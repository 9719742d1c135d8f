package executor

import (
	"io"
	"net/http"
)

// Keeping net/http from replaying requests on its own.
//
// http.Transport re-sends a request on a fresh connection when a reused
// keep-alive connection fails before any response byte arrives (the server
// may have read — and acted on — the request before closing), provided the
// request is "replayable" (net/http request.go, isReplayable): its Body is
// nil, http.NoBody or has GetBody, and either the method is GET, HEAD,
// OPTIONS or TRACE, or the header map holds the exact key
// "Idempotency-Key" or "X-Idempotency-Key". Such a replay is invisible to
// the executor: one counted attempt would reach the upstream twice, and a
// bodyless mutation carrying a key would be resent where R3/R9 say the
// executor decides (OUTCOME_UNKNOWN, or a counted retry when R1 allows it).
//
// Two changes make every request non-replayable without changing its
// meaning on the wire:
//
//   - A bodyless request of a method net/http replays by name gets a
//     non-nil, empty body with no GetBody and the explicit "identity"
//     transfer encoding. The identity encoding skips net/http's body probe
//     (a goroutine and a 200 ms timer per request that could fall back to a
//     chunked GET), and with an unknown length and no chunking HTTP/1.1
//     writes neither Content-Length nor Transfer-Encoding: the same bytes
//     as before. Only these methods get it, because for POST, PUT and PATCH
//     it would drop the "Content-Length: 0" many servers expect.
//   - The idempotency-key header names are stored in lower case
//     (hideReplayHeaders). Header names are case-insensitive (RFC 9110
//     §5.1) and HTTP/2 lower-cases them anyway, but the Transport's check
//     is an exact map lookup, so a bodyless mutation with a key is no
//     longer replayable and keeps its "Content-Length: 0".
//
// A request with a non-empty body was never replayable: it has no GetBody.
//
// Over HTTP/2 the empty body of a GET/HEAD/OPTIONS/TRACE is one empty DATA
// frame that ends the stream, without content-length: still no content for
// the upstream (a Go server sees ContentLength -1 and reads zero bytes).
// HTTP/2 itself only re-sends a request the server reported as not
// processed, but the Transport decides the protocol per connection after
// the request is built, so the same request must be safe for both.
//
// What the Transport still does on its own is re-dial when it knows nothing
// was written (HTTP/1 bodyless requests other than the ones above) or when
// HTTP/2 says the stream was not processed (GOAWAY, REFUSED_STREAM); in
// those cases the upstream saw no request, so no attempt is hidden. The
// price: a GET whose reused connection fails before anything was written
// is now a failed attempt the executor counts (and retries when the budget
// allows) instead of a silent re-dial. TestTransportNeverReplaysBehindTheExecutor
// pins all of this against the net/http in use.

// identityEncoding is shared read-only by every request that needs it.
var identityEncoding = []string{"identity"}

// replayedByMethod reports whether net/http replays a bodyless request of
// this method whatever its headers.
func replayedByMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// emptyBody is a request body with no bytes that net/http cannot rewind.
// It implements io.WriterTo so that net/http's io.Copy of an unknown-length
// body does not fall back to the connection's ReadFrom and its 32 KiB copy
// buffer per request.
type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error)         { return 0, io.EOF }
func (emptyBody) WriteTo(io.Writer) (int64, error) { return 0, nil }
func (emptyBody) Close() error                     { return nil }

// makeUnreplayable gives a bodyless request of a method replayed by name
// the empty, non-rewindable body described above.
func makeUnreplayable(req *http.Request) {
	if (req.Body == nil || req.Body == http.NoBody) && replayedByMethod(req.Method) {
		req.Body = emptyBody{}
		req.ContentLength = 0
		req.TransferEncoding = identityEncoding
	}
}

// replayHeaders are the canonical names net/http's replay check looks up,
// with the lower-case names they are sent under instead.
var replayHeaders = [...][2]string{
	{"Idempotency-Key", "idempotency-key"},
	{"X-Idempotency-Key", "x-idempotency-key"},
}

// hideReplayHeaders moves the idempotency-key headers to lower-case names.
// It must only be called on a header map no request in flight is reading.
func hideReplayHeaders(h http.Header) {
	for _, names := range replayHeaders {
		if v, ok := h[names[0]]; ok {
			delete(h, names[0])
			h[names[1]] = append(h[names[1]], v...)
		}
	}
}
