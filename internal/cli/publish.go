package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
)

// publishCmd is `toolgate publish`: sign the exposed, approved state as the
// next bundle version, from the local data directory.
type publishCmd struct {
	dataDirFlag `embed:""`
	kekFlag     `embed:""`
	Note        string `name:"note" help:"What changed and why (shown in the history)."`
}

// Run publishes and prints the new version on its own line, for scripts.
func (c *publishCmd) Run(ctx context.Context, env *Env) error {
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	keys, err := openKeyring(ctx, db, c.DataDir, c.KEKFile)
	if err != nil {
		return err
	}
	key, err := activeKeyOrExit(ctx, keys)
	if err != nil {
		return err
	}
	rec, err := db.Publish(ctx, store.PublishRequest{Actor: cliActor(), Note: c.Note, Key: key})
	if err != nil {
		return userError(err)
	}
	fmt.Fprintln(env.Stdout, rec.Version)
	return c.reportWithheld(ctx, env, db, rec.Version)
}

// reportWithheld tells the person on stderr which exposed tools version v
// left out and why (not approved, or refused by the runtime's executor),
// as the publish audit entry recorded them; stdout stays the version.
func (c *publishCmd) reportWithheld(ctx context.Context, env *Env, db *store.DB, v int64) error {
	entries, _, err := db.QueryAudit(ctx, store.AuditFilter{Action: "bundle.publish", Subject: fmt.Sprintf("bundle:%d", v)})
	if err != nil || len(entries) == 0 {
		return err
	}
	var after struct {
		Withheld []store.WithheldTool `json:"withheld"`
	}
	if err := json.Unmarshal([]byte(entries[0].After), &after); err != nil {
		return fmt.Errorf("publish audit entry: %w", err)
	}
	for _, w := range after.Withheld {
		fmt.Fprintf(env.Stderr, "withheld %s: %s\n", w.Tool, printable(w.Reason))
	}
	return nil
}

// signingKeys is the key directory of a data directory, as serve uses it.
func signingKeys(dataDir string) bundle.KeyDir {
	return bundle.KeyDir{Path: filepath.Join(dataDir, "keys")}
}
