//go:build !runtimeonly

package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/toolgate/toolgate/internal/store"
)

// bundleCmd groups the subcommands that work on signed bundles.
type bundleCmd struct {
	Verify bundleVerifyCmd `cmd:"" help:"Verify a signed bundle file offline against a public key (exit 0 valid, 1 refused, 2 unusable input)."`
	Export bundleExportCmd `cmd:"" help:"Write a published bundle exactly as runtimes receive it (the JWS) to a file."`
}

// bundleExportCmd is `toolgate bundle export`: a published bundle exactly as
// runtimes receive it (the JWS), written to a file.
type bundleExportCmd struct {
	dataDirFlag `embed:""`
	Version     int64  `name:"version" placeholder:"N" help:"Version to export (default: the current one)."`
	Out         string `name:"out" required:"" placeholder:"FILE" help:"File to write the signed bundle to."`
}

// Run writes the JWS and says which version it was.
func (c *bundleExportCmd) Run(ctx context.Context, env *Env) error {
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	var rec *store.BundleRecord
	if c.Version > 0 {
		rec, err = db.BundleByVersion(ctx, c.Version)
	} else {
		rec, err = db.LatestBundle(ctx)
	}
	if err != nil {
		return userError(err)
	}
	if err := os.WriteFile(c.Out, []byte(rec.Signed), 0o644); err != nil {
		return fmt.Errorf("bundle export: %w", err)
	}
	fmt.Fprintf(env.Stdout, "wrote bundle v%d (%d tools, key %s) to %s\n", rec.Version, rec.ToolCount, rec.KeyID, c.Out)
	return nil
}
