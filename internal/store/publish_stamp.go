package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
)

// sameLatestVersion refuses a rollback when another version was published
// after it read the current one.
func sameLatestVersion(ctx context.Context, tx *sqlx.Tx, version int64) error {
	var now int64
	if err := tx.GetContext(ctx, &now, `SELECT COALESCE(MAX(version), 0) FROM bundles`); err != nil {
		return fmt.Errorf("latest version: %w", err)
	}
	if now != version {
		return apperr.Conflictf("Version %d was published while this rollback was being prepared. Review the history and roll back again.", now)
	}
	return nil
}
