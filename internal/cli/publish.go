package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
)

// publishCmd is `toolgate publish`: sign the exposed, approved state as the
// next bundle version, from the local data directory.
type publishCmd struct {
	dataDirFlag `embed:""`
	Note        string `name:"note" help:"What changed and why (shown in the history)."`
}

// Run publishes and prints the new version on its own line, for scripts.
func (c *publishCmd) Run(ctx context.Context, env *Env) error {
	db, err := openStore(ctx, c.DataDir, true)
	if err != nil {
		return err
	}
	defer db.Close()
	key, err := signingKeys(c.DataDir).Active()
	if errors.Is(err, bundle.ErrNoActiveKey) {
		return Exit(1, errors.New("publish: no signing key yet: run `toolgate keys rotate` or start `toolgate serve` once"))
	} else if err != nil {
		return err
	}
	rec, err := db.Publish(ctx, store.PublishRequest{Actor: cliActor(), Note: c.Note, Key: key})
	if err != nil {
		return userError(err)
	}
	fmt.Fprintln(env.Stdout, rec.Version)
	return nil
}

// signingKeys is the key directory of a data directory, as serve uses it.
func signingKeys(dataDir string) bundle.KeyDir {
	return bundle.KeyDir{Path: filepath.Join(dataDir, "keys")}
}
