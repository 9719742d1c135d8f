package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/toolgate/toolgate/internal/bundle"
)

// benchJSON is the response every benchmark reads: a small API object.
var benchJSON = []byte(`{"id":"42","name":"Widget","price":{"amount":1999,"currency":"EUR"},` +
	`"tags":["blue","small","sale"],"stock":17,"updated_at":"2026-01-01T00:00:00Z"}`)

func benchTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableCompression = true
	tr.MaxIdleConnsPerHost = 64
	return tr
}

func benchTool() bundle.Tool {
	bt := testTool("get_item", "GET", "/items/{id}", retrying(2),
		bundle.Param{Name: "id", In: "path", Arg: "id", Required: true})
	bt.InputSchema = []byte(`{"type":"object","properties":{"id":{"type":"string","maxLength":64}},"required":["id"]}`)
	return bt
}

// BenchmarkLoopback compares one GET with JSON decoding against the same
// loopback upstream: plain net/http, go-retryablehttp, and the executor.
func BenchmarkLoopback(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(benchJSON)
	}))
	defer srv.Close()
	ctx := context.Background()
	url := srv.URL + "/items/42"

	b.Run("nethttp", func(b *testing.B) {
		client := &http.Client{Transport: benchTransport()}
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("retryablehttp", func(b *testing.B) {
		client := retryablehttp.NewClient()
		client.HTTPClient = &http.Client{Transport: benchTransport()}
		client.Logger = nil
		client.RetryMax = 1
		b.ReportAllocs()
		for b.Loop() {
			req, _ := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("executor", func(b *testing.B) {
		e, err := New(testBundle(srv.URL, benchTool()), Options{Transport: benchTransport()})
		if err != nil {
			b.Fatal(err)
		}
		args := map[string]any{"id": "42"}
		b.ReportAllocs()
		for b.Loop() {
			if r := e.Call(ctx, "get_item", args); !r.OK {
				b.Fatal(r.Err)
			}
		}
	})
}

// memoryTransport answers every request with benchJSON without a network,
// so a benchmark through it measures the client's own CPU.
type memoryTransport struct{}

func (memoryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(benchJSON)),
		ContentLength: int64(len(benchJSON)),
		Request:       req,
	}, nil
}

// BenchmarkInMemory is the CPU cost per call without a network: plain
// net/http (request, read, decode) and the executor (arguments checked
// against the schema, request built, policy, breaker, body read and parsed).
func BenchmarkInMemory(b *testing.B) {
	ctx := context.Background()
	b.Run("nethttp", func(b *testing.B) {
		client := &http.Client{Transport: memoryTransport{}}
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://api.example/items/42", nil)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("executor", func(b *testing.B) {
		e, err := New(testBundle("https://api.example", benchTool()), Options{Transport: memoryTransport{}})
		if err != nil {
			b.Fatal(err)
		}
		args := map[string]any{"id": "42"}
		b.ReportAllocs()
		for b.Loop() {
			if r := e.Call(ctx, "get_item", args); !r.OK {
				b.Fatal(r.Err)
			}
		}
	})
}
