//go:build !runtimeonly

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/pusher"
	"github.com/toolgate/toolgate/internal/store"
)

// publishCmd is `toolgate publish`: sign the exposed, approved state as the
// next bundle version, from the local data directory.
type publishCmd struct {
	dataDirFlag   `embed:""`
	kekFlag       `embed:""`
	registryFlags `embed:""`
	Note          string `name:"note" help:"What changed and why (shown in the history)."`
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
	push, err := c.pusher(env, db, slog.New(slog.NewTextHandler(env.Stderr, nil)), keys)
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
	if err := c.reportWithheld(ctx, env, db, rec.Version); err != nil {
		return err
	}
	if push != nil {
		c.pushNow(ctx, env, db, push, rec.Version)
	}
	return nil
}

// pushNow tries the registry push once, bounded: the bundle is published
// whatever happens, and a failed push stays queued for a console started
// with --publish-to-registry. The outcome goes to stderr.
func (c *publishCmd) pushNow(ctx context.Context, env *Env, db *store.DB, push *pusher.Pusher, v int64) {
	pctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := push.Drain(pctx); err != nil {
		fmt.Fprintf(env.Stderr, "push to %s: %v (the bundle is published)\n", push.Target(), err)
		return
	}
	state, err := db.BundlePushes(ctx, push.Target())
	if p, ok := state[v]; err == nil && ok && p.State != store.PushPushed {
		fmt.Fprintf(env.Stderr, "push to %s failed: %s (the bundle is published; a console with --publish-to-registry retries the push)\n",
			push.Target(), printable(p.LastError))
	}
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
