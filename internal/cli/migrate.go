//go:build !runtimeonly

package cli

import (
	"context"
	"fmt"

	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/store"
)

type migrateCmd struct {
	dataDirFlag `embed:""`
}

// Run applies pending migrations and says which.
func (c *migrateCmd) Run(ctx context.Context, env *Env) error {
	db, err := createStore(ctx, c.DataDir, c.DatabaseURL, false)
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := db.Migrate(ctx)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		_, err = fmt.Fprintf(env.Stdout, "%s is up to date\n", databaseName(c.DataDir, c.DatabaseURL))
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "applied migrations %v to %s\n", applied, databaseName(c.DataDir, c.DatabaseURL))
	return err
}

// databaseName says which database a command uses, for messages and logs:
// the SQLite file, or the PostgreSQL URL without its password.
func databaseName(dataDir, databaseURL string) string {
	if databaseURL != "" {
		return store.RedactURL(databaseURL)
	}
	return config.DBPath(dataDir)
}
