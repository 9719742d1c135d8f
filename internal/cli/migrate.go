package cli

import (
	"context"
	"fmt"

	"github.com/toolgate/toolgate/internal/config"
)

type migrateCmd struct {
	dataDirFlag `embed:""`
}

// Run applies pending migrations and says which.
func (c *migrateCmd) Run(ctx context.Context, env *Env) error {
	db, err := openStore(ctx, c.DataDir, false)
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := db.Migrate(ctx)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		_, err = fmt.Fprintf(env.Stdout, "%s is up to date\n", config.DBPath(c.DataDir))
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "applied migrations %v to %s\n", applied, config.DBPath(c.DataDir))
	return err
}
