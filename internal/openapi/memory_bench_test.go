package openapi

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// largeDoc is a JSON document of n operations in the shape of a large
// generated API: a path item per resource with a path parameter, a GET
// with a query parameter and a PATCH with an inline body, 200 shared
// response schemas and a shared error response (about 500 bytes an
// operation).
func largeDoc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"large","version":"1"},"servers":[{"url":"https://api.example.com/v1"}],"paths":{`)
	for i := 0; i < n; i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		r := i / 2
		fmt.Fprintf(&b, `"/res%d/{id}":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],`+
			`"get":{"operationId":"getRes%d","summary":"Get resource %d","tags":["t%d"],"parameters":[{"name":"expand","in":"query","schema":{"type":"array","items":{"type":"string","enum":["owner","items"]}}}],`+
			`"responses":{"200":{"description":"the resource","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Res%d"}}}},"404":{"$ref":"#/components/responses/NotFound"}}}`, r, r, r, r%50, r%200)
		if i+1 < n {
			fmt.Fprintf(&b, `,"patch":{"operationId":"updateRes%d","summary":"Update resource %d","requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","properties":{"name":{"type":"string","maxLength":200},"owner":{"$ref":"#/components/schemas/Owner"},"labels":{"type":"object","additionalProperties":{"type":"string"}}}}}}},`+
				`"responses":{"200":{"description":"updated","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Res%d"}}}},"404":{"$ref":"#/components/responses/NotFound"}}}`, r, r, r%200)
		}
		b.WriteByte('}')
	}
	b.WriteString(`},"components":{"responses":{"NotFound":{"description":"not found","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Error"}}}}},"schemas":{`)
	b.WriteString(`"Error":{"type":"object","properties":{"code":{"type":"integer"},"message":{"type":"string"}}},`)
	b.WriteString(`"Owner":{"type":"object","required":["id"],"properties":{"id":{"type":"string"},"email":{"type":"string","format":"email"},"manager":{"$ref":"#/components/schemas/Owner"}}}`)
	for s := range 200 {
		fmt.Fprintf(&b, `,"Res%d":{"type":"object","properties":{"id":{"type":"string","readOnly":true},"name":{"type":"string"},"owner":{"$ref":"#/components/schemas/Owner"},"created_at":{"type":"string","format":"date-time"},"items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer","minimum":0}}}}}}`, s)
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

// peakHeap runs f and returns the most heap memory its objects occupied
// (live and not yet collected, over what was in use before), sampled
// every 2 ms from runtime/metrics, which does not stop the program.
func peakHeap(f func()) uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	base := s[0].Value.Uint64()
	done, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var top uint64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			top = max(top, s[0].Value.Uint64())
			select {
			case <-done:
				peak <- top - min(top, base)
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	return <-peak
}

// BenchmarkImportMemory imports generated documents of 1,000, 5,000 and
// 20,000 operations and fails when the heap peaks over 30× the document's
// bytes plus 50 MiB (the import memory goal in the README). Run by make
// bench-import, not make test: the 20,000-operation import takes a while.
func BenchmarkImportMemory(b *testing.B) {
	for _, n := range []int{1000, 5000, 20_000} {
		data := largeDoc(n)
		bound := 30*uint64(len(data)) + 50<<20
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				var doc *Document
				var err error
				peak := peakHeap(func() { doc, err = LoadBytes("api.json", data, Options{}) })
				if err != nil || len(doc.Operations) != n {
					b.Fatalf("import: %v", err)
				}
				b.ReportMetric(float64(peak)/float64(len(data)), "peak-heap/doc-byte")
				b.ReportMetric(float64(peak>>20), "peak-heap-MiB")
				if peak > bound {
					b.Errorf("%d operations, %d MiB document: heap peaked at %d MiB, over the bound of %d MiB (30× + 50 MiB)",
						n, len(data)>>20, peak>>20, bound>>20)
				}
			}
		})
	}
}
