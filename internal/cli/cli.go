// Package cli parses toolgate's subcommands and runs them. Each subcommand
// lives in its own file as a struct with a Run(ctx, *Env) error method; this
// file only lists them.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// Env is what every subcommand gets from the process: no globals, so tests
// can run commands with their own environment and buffers.
type Env struct {
	Getenv func(string) string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// ExitError carries a specific exit status out of a command (e.g. 1 for a
// classified failure, 2 when nothing could be done).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Exit wraps err so that the process exits with code.
func Exit(code int, err error) error { return &ExitError{Code: code, Err: err} }

// oneLineError keeps an error on one line for the terminal (parser messages
// may quote multi-line input; errors.Join puts one error per line) while
// errors.Is and errors.As still see the error underneath. Lines become
// "; "-separated, runs of white space one space.
type oneLineError struct{ err error }

func (e oneLineError) Error() string {
	lines := strings.Split(e.err.Error(), "\n")
	kept := lines[:0]
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "; ")
}

func (e oneLineError) Unwrap() error { return e.err }

// exitRequest is how kong's exit after --help reaches Run without ending the
// process (tests call Run).
type exitRequest int

// Run parses args and runs the chosen subcommand. main calls it; so do tests.
func Run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	env := &Env{Getenv: getenv, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	var cmds commands
	parser, err := kong.New(&cmds,
		kong.Name("toolgate"),
		kong.Description("toolgate decides which operations of an HTTP API an LLM agent may call, and how calls may be retried."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exitRequest(code)) }),
		kong.UsageOnError(),
		kong.BindTo(ctx, (*context.Context)(nil)),
		kong.Bind(env),
		kong.Resolvers(envResolver(getenv)),
	)
	if err != nil {
		return fmt.Errorf("building the command line: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			code, ok := r.(exitRequest)
			if !ok {
				panic(r)
			}
			if code != 0 {
				err = Exit(int(code), errors.New("usage error"))
			}
		}
	}()
	if len(args) == 0 {
		args = []string{"--help"}
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		return Exit(2, err)
	}
	return kctx.Run()
}

// envResolver fills flags that carry an env tag from getenv, so tests pass
// their own environment (kong itself would read os.Getenv). A flag given on
// the command line still wins.
func envResolver(getenv func(string) string) kong.Resolver {
	return kong.ResolverFunc(func(_ *kong.Context, _ *kong.Path, flag *kong.Flag) (any, error) {
		for _, name := range flag.Envs {
			if v := getenv(name); v != "" {
				return v, nil
			}
		}
		return nil, nil
	})
}

// ExitCode prints err (if any) as one line on stderr and returns the exit
// status for it: 0 for nil, the code of an ExitError, 1 otherwise.
func ExitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ee *ExitError
	code := 1
	if errors.As(err, &ee) {
		code = ee.Code
	}
	if err.Error() != "usage error" {
		fmt.Fprintf(stderr, "toolgate: %v\n", err)
	}
	return code
}
