package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"

	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

func runCLI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return Run(ctx, args, func(string) string { return "" }, strings.NewReader(""), stdout, stderr)
}

func TestSampleAPIPrintOpenAPI(t *testing.T) {
	for _, format := range []string{"yaml", "json"} {
		t.Run(format, func(t *testing.T) {
			var out bytes.Buffer
			err := runCLI(t.Context(), []string{"sample-api", "--print-openapi", "--openapi-format", format, "--addr", "127.0.0.1:9191"}, &out, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := libopenapi.NewDocument(out.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			m, err := doc.BuildV3Model()
			if err != nil {
				t.Fatalf("printed document does not build: %v", err)
			}
			if got := m.Model.Servers[0].URL; got != "http://127.0.0.1:9191" {
				t.Errorf("servers[0].url = %q, want the --addr origin", got)
			}
		})
	}
}

func TestSampleAPIRefusesBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"non-loopback address", []string{"sample-api", "--addr", "0.0.0.0:9090"}},
		{"address without port", []string{"sample-api", "--addr", "127.0.0.1"}},
		{"success status as a failure", []string{"sample-api", "--addr", "127.0.0.1:0", "--fail-next", "1", "--fail-status", "200"}},
		{"negative delay", []string{"sample-api", "--addr", "127.0.0.1:0", "--delay-ms", "-5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := runCLI(t.Context(), tt.args, io.Discard, io.Discard)
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != 2 {
				t.Fatalf("err = %v, want exit status 2", err)
			}
		})
	}
}

var listeningRE = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)

func TestSampleAPIServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- runCLI(ctx, []string{"sample-api", "--addr", "127.0.0.1:0", "--token", "t0k", "--fail-next", "1"}, &stdout, &stderr)
	}()

	var origin string
	for deadline := time.Now().Add(5 * time.Second); origin == ""; time.Sleep(10 * time.Millisecond) {
		if m := listeningRE.FindStringSubmatch(stdout.String()); m != nil {
			origin = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no listening line; stdout %q stderr %q", stdout.String(), stderr.String())
		}
	}

	get := func(path string) int {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, "GET", origin+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer t0k")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// The --fail-next flag is armed at start; the seeded order exists.
	if got := get("/orders"); got != http.StatusServiceUnavailable {
		t.Errorf("first request = %d, want 503 from --fail-next 1", got)
	}
	if got := get("/orders/ord_0001"); got != http.StatusOK {
		t.Errorf("seeded order = %d, want 200", got)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v after cancel, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sample-api did not stop after its context was cancelled")
	}
	if !strings.Contains(stderr.String(), `route="GET /orders"`) || !strings.Contains(stderr.String(), "fault=fail_next") {
		t.Errorf("structured request log missing; stderr %q", stderr.String())
	}
}
