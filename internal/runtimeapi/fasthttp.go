package runtimeapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"time"
	"unsafe"

	"github.com/labstack/echo/v4"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/httperr"
)

// FastHTTP is the runtime API (/api/v1/…) as a valyala/fasthttp
// handler, for `serve --runtime-api-addr`: a listener of its own for a
// fleet of runtimes, which poll GET /api/v1/bundle and are answered 304
// almost every time. net/http spends about twice nginx's CPU on such an
// answer (a goroutine and a background read per request, headers parsed
// into maps); fasthttp reuses its request objects and reads headers in
// place. The README's Benchmarks section has the figures.
//
// GET /api/v1/bundle with an active token is answered here, 304 or 200,
// with exactly the headers, metrics, fleet record and log line of the
// console's own listener. Everything else — any error, another path, an
// older version, the keys, the metrics — goes through the same echo
// instance the console's listener uses (fasthttpadaptor), so each answer
// has one implementation.
func (s *Service) FastHTTP() fasthttp.RequestHandler {
	full := fasthttpadaptor.NewFastHTTPHandler(s.api)
	return func(ctx *fasthttp.RequestCtx) {
		defer s.recoverFastHTTP(ctx)
		if !s.bundleFastHTTP(ctx) {
			full(ctx)
			if refusesClient(ctx.Response.StatusCode()) {
				ctx.SetConnectionClose() // as apiError asks net/http to
			}
		}
	}
}

// bundleFastHTTP answers GET /api/v1/bundle when the token is active and a
// bundle is published, and reports whether it did.
func (s *Service) bundleFastHTTP(ctx *fasthttp.RequestCtx) bool {
	if !ctx.IsGet() || string(ctx.Path()) != "/api/v1/bundle" {
		return false
	}
	in := readFetchHeaders(&ctx.Request.Header)
	cur, tokenID, ok := s.fastBundle(ctx, in.authorization)
	if !ok {
		return false
	}
	if cur, tokenID, ok = s.holdFastHTTP(ctx, &in, cur, tokenID); !ok {
		return false
	}
	in.report.remoteIP, _ = netip.AddrFromSlice(ctx.RemoteIP())
	s.fleet.record(tokenID, in.report)
	cur = cur.formFor(in.report.schemas)
	h := &ctx.Response.Header
	h.SetCanonical(keyETag, cur.etagBytes)
	h.SetCanonical(keyCacheControl, valCacheControl)
	h.SetCanonical(keyVary, valVary)
	h.SetCanonical(keyNoSniff, valNoSniff)
	h.SetCanonical(keyCSP, valCSP)
	status, level := http.StatusNotModified, slog.LevelDebug
	if cur.notModified(in.ifNoneMatch) {
		ctx.SetStatusCode(status)
		s.metrics.notModified.Inc()
	} else {
		status, level = http.StatusOK, slog.LevelInfo
		h.SetCanonical(keyBundleVersion, cur.versionBytes)
		h.SetContentType(bundle.MediaTypeJOSE)
		// The signed bytes never change once read: no copy per answer.
		ctx.Response.SetBodyRaw(cur.signed)
		s.metrics.bundleResults.WithLabelValues(resultSent).Inc()
	}
	if log := s.log; log.Enabled(ctx, level) {
		log.LogAttrs(ctx, level, "request", slog.String("method", http.MethodGet), slog.String("path", "/api/v1/bundle"),
			slog.Int("status", status), slog.Duration("latency", time.Since(ctx.Time())), slog.String("remote", in.report.remoteIP.Unmap().String()))
	}
	return true
}

// Response header names and values of the fast path, in canonical form:
// SetCanonical skips the normalisation Set does on every call.
var (
	keyETag          = []byte("Etag")
	keyCacheControl  = []byte("Cache-Control")
	keyNoSniff       = []byte("X-Content-Type-Options")
	keyCSP           = []byte("Content-Security-Policy")
	keyBundleVersion = []byte(headerBundleVersion)
	keyVary          = []byte("Vary")
	valVary          = []byte(varyBundle)
	valCacheControl  = []byte(apiCacheControl)
	valNoSniff       = []byte("nosniff")
	valCSP           = []byte(apiCSP)
)

// fetchHeaders are the request headers the fast path reads.
type fetchHeaders struct {
	authorization, ifNoneMatch string
	prefer                     string      // long polling (longpoll.go)
	report                     fetchReport // remoteIP not set
}

// readFetchHeaders reads them in one pass over the request's headers,
// whose names fasthttp stored in canonical form when it parsed them; a
// Peek per header would normalise its key every time. A repeated header
// counts by its first value, as net/http's Header.Get does. The values
// are borrowed: they live as long as the request.
func readFetchHeaders(h *fasthttp.RequestHeader) fetchHeaders {
	var f fetchHeaders
	for k, v := range h.All() {
		var dst *string
		switch string(k) {
		case "Authorization":
			dst = &f.authorization
		case "If-None-Match":
			dst = &f.ifNoneMatch
		case headerPrefer:
			dst = &f.prefer
		case headerInstanceID:
			dst = &f.report.instance
		case headerRuntimeName:
			dst = &f.report.name
		case headerBundleVersion:
			dst = &f.report.version
		case headerRefused:
			dst = &f.report.refused
		case headerBundleSchemas:
			dst = &f.report.schemas
		default:
			continue
		}
		if *dst == "" {
			*dst = borrow(v)
		}
	}
	return f
}

// RequestError answers a request the runtime API listener could not read
// (fasthttp.Server.ErrorHandler) in the API's JSON vocabulary, like every
// other API error: 431 for a request head over the read buffer, 413 for a
// body over the limit (the API takes none), 408 for a client too slow to
// send its request, 400 for anything malformed.
func RequestError(ctx *fasthttp.RequestCtx, err error) {
	var (
		small *fasthttp.ErrSmallBuffer
		nerr  net.Error
	)
	a := httperr.Answer{Status: http.StatusBadRequest, Code: apperr.Invalid, Message: "The request is not valid HTTP/1.1."}
	switch {
	case errors.As(err, &small):
		a.Status, a.Message = http.StatusRequestHeaderFieldsTooLarge, "The request's headers are too large."
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		a = httperr.Answer{Status: http.StatusRequestEntityTooLarge, Code: apperr.TooLarge, Message: "The runtime API takes no request body this large."}
	case errors.As(err, &nerr) && nerr.Timeout():
		a.Status, a.Message = http.StatusRequestTimeout, "The request took too long to arrive."
	}
	ctx.Response.Reset()
	_ = writeError(fastErrors{ctx}, a)
}

// fastErrors is the fasthttp listener's errorWriter.
type fastErrors struct{ ctx *fasthttp.RequestCtx }

func (f fastErrors) setHeader(key, value string) {
	if key == "Connection" {
		f.ctx.SetConnectionClose()
		return
	}
	f.ctx.Response.Header.Set(key, value)
}

func (f fastErrors) send(status int, body []byte) error {
	f.ctx.SetStatusCode(status)
	f.ctx.SetContentType(echo.MIMEApplicationJSON)
	f.ctx.SetBody(body)
	return nil
}

// borrow is b as a string without a copy, for as long as b is not
// changed: header values fasthttp hands out live until the request ends,
// and a profile under load showed copying them — six small allocations a
// request, and the page faults of a heap that grows and shrinks — to be a
// third of the fast path's CPU time. Nothing keeps a borrowed string past
// the request (fleetRecorder.record copies what it keeps;
// TestRuntimeAPIFastPathKeepsNoBorrowedBytes).
func borrow(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// recoverFastHTTP turns a panic on the fast path into the API's 500 (the
// echo path has its own recovery): fasthttp, unlike net/http, would let it
// end the process.
func (s *Service) recoverFastHTTP(ctx *fasthttp.RequestCtx) {
	v := recover()
	if v == nil {
		return
	}
	s.log.Error("panic serving the runtime API", "path", string(ctx.Path()), "panic", fmt.Sprint(v))
	ctx.Response.Reset()
	_ = writeError(fastErrors{ctx}, httperr.Classify(errors.New("panic")))
}
