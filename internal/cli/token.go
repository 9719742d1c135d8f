//go:build !runtimeonly

package cli

import (
	"context"
	"fmt"
)

// tokenCmd groups the runtime token commands.
type tokenCmd struct {
	Create tokenCreateCmd `cmd:"" help:"Create a runtime token and print it once."`
	Revoke tokenRevokeCmd `cmd:"" help:"Revoke a runtime token by name (its next fetch gets 401)."`
}

type tokenCreateCmd struct {
	dataDirFlag `embed:""`
	Name        string `name:"name" required:"" help:"Which runtime or fleet uses the token."`
}

// Run prints the token alone on stdout (for scripts) and a reminder on
// stderr: it is stored only as a hash.
func (c *tokenCreateCmd) Run(ctx context.Context, env *Env) error {
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	_, secret, err := db.CreateRuntimeToken(ctx, cliActor(), c.Name)
	if err != nil {
		return userError(err)
	}
	fmt.Fprintln(env.Stdout, secret)
	fmt.Fprintf(env.Stderr, "token %q created; it is shown only this once\n", c.Name)
	return nil
}

type tokenRevokeCmd struct {
	dataDirFlag `embed:""`
	Name        string `arg:"" name:"NAME" help:"Name of the token to revoke."`
}

// Run revokes the token.
func (c *tokenRevokeCmd) Run(ctx context.Context, env *Env) error {
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.RevokeRuntimeToken(ctx, cliActor(), c.Name); err != nil {
		return userError(err)
	}
	fmt.Fprintf(env.Stdout, "revoked %s\n", c.Name)
	return nil
}
