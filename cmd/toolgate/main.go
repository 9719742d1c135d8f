// Command toolgate is the toolgate console, its CLI and its runtime.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolgate/toolgate/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(cli.ExitCode(err, os.Stderr))
}
