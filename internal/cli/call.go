//go:build !runtimeonly

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
)

// callCmd is `toolgate call`: one tool call through the executor, exactly as
// a runtime would make it, printed as one JSON object.
type callCmd struct {
	Bundle                   string `name:"bundle" required:"" placeholder:"FILE" help:"The signed bundle (JWS compact serialization)."`
	Key                      string `name:"key" required:"" placeholder:"PUBKEY_FILE" help:"Public keys to verify the bundle: a JWK Set or a single JWK."`
	Credentials              string `name:"credentials" placeholder:"FILE" help:"Credentials file: {\"sources\":{\"NAME\":{\"bearer\":\"env:VAR\"}}} (see README)."`
	AllowInsecureCredentials bool   `name:"allow-insecure-credentials" help:"Send credentials to http:// origins too. Local development only."`
	Args                     string `name:"args" default:"{}" placeholder:"JSON" help:"The tool's arguments as a JSON object."`
	Tool                     string `arg:"" name:"TOOL" help:"Name of the tool to call."`
}

// Run verifies the bundle, makes the call and prints the result. Exit
// status: 0 ok, 1 the call ended in a classified error, 2 no call was
// possible (unreadable or refused bundle, bad arguments JSON, bad
// credentials file).
func (c *callCmd) Run(ctx context.Context, env *Env) error {
	b, err := c.verifiedBundle()
	if err != nil {
		return Exit(2, err)
	}
	args, err := parseArgs(c.Args)
	if err != nil {
		return Exit(2, err)
	}
	opts := executor.Options{
		AllowInsecureCredentials: c.AllowInsecureCredentials,
		Logger:                   slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if c.Credentials != "" {
		creds, err := executor.LoadCredentials(c.Credentials, env.Getenv)
		if err != nil {
			return Exit(2, fmt.Errorf("call: %w", err))
		}
		opts.Credentials = creds
	}
	e, err := executor.New(b, opts)
	if err != nil {
		return Exit(2, fmt.Errorf("call: %w", err))
	}
	r := e.Call(ctx, c.Tool, args)
	if err := json.NewEncoder(env.Stdout).Encode(r); err != nil {
		return fmt.Errorf("call: writing the result: %w", err)
	}
	if !r.OK {
		return Exit(1, fmt.Errorf("call %s: %s", c.Tool, r.Err.Class))
	}
	return nil
}

func (c *callCmd) verifiedBundle() (*bundle.Bundle, error) {
	keys, err := readKeySet(c.Key)
	if err != nil {
		return nil, fmt.Errorf("call: %w", err)
	}
	signed, err := os.ReadFile(c.Bundle)
	if err != nil {
		return nil, fmt.Errorf("call: reading the bundle: %w", err)
	}
	b, _, err := bundle.Verify(signed, keys, bundle.VerifyOptions{Now: time.Now()})
	if err != nil {
		return nil, fmt.Errorf("call: bundle %s refused: %w", c.Bundle, oneLineError{err})
	}
	return b, nil
}

// parseArgs reads the arguments object. Numbers stay json.Number so that an
// id like 9007199254740993 reaches the upstream unchanged.
func parseArgs(s string) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return nil, fmt.Errorf("call: --args is not a JSON object: %w", err)
	}
	if dec.More() {
		return nil, errors.New("call: --args has data after the JSON object")
	}
	if args == nil {
		return nil, errors.New("call: --args must be a JSON object, not null")
	}
	return args, nil
}
