//go:build !runtimeonly

package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/internal/audit"
)

type auditCmd struct {
	Verify auditVerifyCmd `cmd:"" help:"Check that the audit log's hash chain is intact (exit 1 naming the first broken entry)."`
}

type auditVerifyCmd struct {
	dataDirFlag `embed:""`
}

// Run verifies the chain without migrating (it only reads).
func (c *auditVerifyCmd) Run(ctx context.Context, env *Env) error {
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, false)
	if err != nil {
		return err
	}
	defer db.Close()
	n, err := db.VerifyAudit(ctx)
	var broken *audit.BrokenError
	if errors.As(err, &broken) {
		return Exit(1, fmt.Errorf("audit log is broken: %w", broken))
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "audit log intact: %d entries\n", n)
	return err
}
