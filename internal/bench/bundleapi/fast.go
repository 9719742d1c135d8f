package main

import (
	"net"
	"os"

	"github.com/valyala/fasthttp"

	"github.com/toolgate/toolgate/internal/store"
)

// startFastHTTP serves the bundle from a minimal valyala/fasthttp handler
// with the same checks as startMinimal: the floor of a Go server built on
// fasthttp, to tell whether another HTTP/1.1 stack could reach what
// net/http cannot on this machine.
func startFastHTTP(token string, rec *store.BundleRecord) (server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return server{}, err
	}
	body, want, etag := []byte(rec.Signed), []byte("Bearer "+token), []byte(rec.ETag)
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		if string(ctx.Request.Header.Peek("Authorization")) != string(want) {
			ctx.SetStatusCode(fasthttp.StatusUnauthorized)
			return
		}
		ctx.Response.Header.SetBytesV("ETag", etag)
		ctx.Response.Header.Set("Cache-Control", "no-cache, must-revalidate")
		if string(ctx.Request.Header.Peek("If-None-Match")) == string(etag) {
			ctx.SetStatusCode(fasthttp.StatusNotModified)
			return
		}
		ctx.SetContentType("application/jose")
		ctx.SetBody(body)
	}, NoDefaultServerHeader: true, NoDefaultDate: false}
	go func() { _ = srv.Serve(ln) }()
	return server{url: "http://" + ln.Addr().String(), pids: []int{os.Getpid()}, stop: func() { _ = srv.Shutdown() }}, nil
}
