package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
)

// publishStamp digests the stored rows a bundle is built from: the latest
// version, every exposed tool joined with its policy and source, and the
// approved change requests. It decodes nothing, so re-reading it inside the
// write transaction costs a fraction of building and signing the bundle.
func publishStamp(ctx context.Context, tx *sqlx.Tx) (string, error) {
	h := sha256.New()
	var version int64
	if err := tx.GetContext(ctx, &version, `SELECT COALESCE(MAX(version), 0) FROM bundles`); err != nil {
		return "", fmt.Errorf("publish stamp: %w", err)
	}
	fmt.Fprintf(h, "version %d\n", version)
	var tools []exposedToolRow
	if err := tx.SelectContext(ctx, &tools, exposedToolsQuery); err != nil {
		return "", fmt.Errorf("publish stamp: %w", err)
	}
	for _, r := range tools {
		fmt.Fprintf(h, "%#v\n", r)
	}
	var approvals []approvalRow
	if err := tx.SelectContext(ctx, &approvals, approvedRequestsQuery); err != nil {
		return "", fmt.Errorf("publish stamp: %w", err)
	}
	for _, r := range approvals {
		fmt.Fprintf(h, "%#v\n", r)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// samePublishState refuses, inside the write transaction, a publish whose
// bundle was built from a state that has changed since.
func samePublishState(ctx context.Context, tx *sqlx.Tx, stamp string) error {
	now, err := publishStamp(ctx, tx)
	if err != nil {
		return err
	}
	if now != stamp {
		return errStalePublish
	}
	return nil
}

// errStalePublish is what samePublishState returns; Publish retries on it.
var errStalePublish = apperr.Conflictf("The tools, approvals or bundles kept changing while the bundle was being built. Review the preview and publish again.")

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
