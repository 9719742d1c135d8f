//go:build !runtimeonly

package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/toolgate/toolgate/internal/listen"
	"github.com/toolgate/toolgate/internal/sampleapi"
)

// sampleAPICmd serves the sample upstream API (internal/sampleapi) that the
// quickstart and the end-to-end tests import and call through toolgate.
type sampleAPICmd struct {
	Addr          string `default:"127.0.0.1:9090" help:"Loopback address to listen on (port 0 picks a free port)."`
	Token         string `default:"sample-token" help:"Bearer token the API requires."`
	Seed          bool   `default:"true" negatable:"" help:"Start with a few sample orders and an admin user."`
	PrintOpenapi  bool   `name:"print-openapi" help:"Print the OpenAPI document (servers set to --addr) and exit, so it can be imported from a file."`
	OpenapiFormat string `name:"openapi-format" default:"yaml" enum:"yaml,json" help:"Format for --print-openapi (yaml or json)."`

	FailNext       int    `group:"faults" help:"Answer the next N API requests with --fail-status."`
	FailStatus     int    `group:"faults" default:"503" help:"Status for --fail-next."`
	DelayMs        int    `group:"faults" name:"delay-ms" help:"Delay every API response by this many milliseconds."`
	RateLimit      int    `group:"faults" help:"Answer the next N API requests with 429."`
	RetryAfterS    int    `group:"faults" name:"retry-after-s" default:"1" help:"Retry-After seconds sent with --rate-limit."`
	DropAfterApply int    `group:"faults" help:"Apply the next N matching requests, then drop the connection without a response."`
	DropMethod     string `group:"faults" default:"POST" help:"Method --drop-after-apply matches (empty: any)."`
}

// Help is shown under `toolgate sample-api --help`.
func (c *sampleAPICmd) Help() string {
	return `Faults can also be changed while it runs:
  curl -X POST localhost:9090/_faults -d '{"fail_next":{"count":3,"status":503}}'
  curl localhost:9090/_faults            # what is still armed
  curl -X DELETE localhost:9090/_faults  # switch everything off
  curl localhost:9090/_stats             # requests that reached each route
The OpenAPI document is at /openapi.yaml and /openapi.json.`
}

func (c *sampleAPICmd) faults() sampleapi.Faults {
	f := sampleapi.Faults{DelayMS: c.DelayMs}
	if c.FailNext > 0 {
		f.FailNext = &sampleapi.FailNext{Count: c.FailNext, Status: c.FailStatus}
	}
	if c.RateLimit > 0 {
		f.RateLimit = &sampleapi.RateLimit{Count: c.RateLimit, RetryAfterS: c.RetryAfterS}
	}
	if c.DropAfterApply > 0 {
		f.DropAfterApply = &sampleapi.DropAfterApply{Count: c.DropAfterApply, Method: c.DropMethod}
	}
	return f
}

// Run serves until ctx is cancelled (Ctrl-C), then shuts down gracefully.
func (c *sampleAPICmd) Run(ctx context.Context, env *Env) error {
	if err := checkLoopback("--addr", c.Addr); err != nil {
		return Exit(2, fmt.Errorf("sample-api: %w", err))
	}
	if c.PrintOpenapi {
		return c.printOpenAPI(env)
	}
	faults := c.faults()
	if err := faults.Validate(); err != nil {
		return Exit(2, fmt.Errorf("sample-api: %w", err))
	}
	raw, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("sample-api: listening on %s: %w", c.Addr, err)
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	ln := listen.Patient(raw, log, "sample-api")
	api := sampleapi.New(sampleapi.Options{Token: c.Token, Logger: log, Faults: faults, Seed: c.Seed})
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second}
	origin := "http://" + ln.Addr().String()
	fmt.Fprintf(env.Stdout, "sample API listening on %s (bearer token %q)\nOpenAPI document: %s/openapi.yaml\n",
		origin, c.Token, origin)

	if err := serveHTTP(ctx, log, "sample-api", srv, ln, 5*time.Second); err != nil {
		return fmt.Errorf("sample-api: serving: %w", err)
	}
	return nil
}

func (c *sampleAPICmd) printOpenAPI(env *Env) error {
	render := sampleapi.OpenAPIYAML
	if c.OpenapiFormat == "json" {
		render = sampleapi.OpenAPIJSON
	}
	doc, err := render("http://" + c.Addr)
	if err != nil {
		return fmt.Errorf("sample-api: %w", err)
	}
	_, err = env.Stdout.Write(doc)
	return err
}
