package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/risk"
)

// ReclassifyResult counts what ReclassifyTools did.
type ReclassifyResult struct {
	// Checked tools were classified by an older rule set.
	Checked int
	// Raised tools got a higher class in force; Suspended of them were
	// exposed and are withheld until approved again.
	Raised, Suspended int
	// Lowered tools now have a verdict below their class in force; the
	// class is kept until a lower-class request is approved.
	Lowered int
}

// ReclassifyTools re-classifies every tool recorded with a rules version
// other than risk.RulesVersion, the way a re-import would (see
// importer.Reclassify): a raised class on an exposed tool suspends its
// exposure, a lower verdict never lowers the class silently. Each tool
// whose verdict or class changes is audited as "tool.reclassify". serve
// calls it at start, after migrating; it does nothing when every tool is
// current.
func (db *DB) ReclassifyTools(ctx context.Context, actor string) (ReclassifyResult, error) {
	var res ReclassifyResult
	var stored []importer.Stored
	var versions []int
	// Classify outside the write transaction (STYLE.md: reads never take the write lock).
	err := db.readTx(ctx, "reclassify tools", func(tx *sqlx.Tx) error {
		var err error
		stored, versions, err = outdatedTools(ctx, tx)
		return err
	})
	if err != nil || len(stored) == 0 {
		return res, err
	}
	plan := importer.Reclassify(stored)
	err = db.inTx(ctx, "reclassify tools", func(tx *sqlx.Tx) error {
		for i, r := range plan {
			if err := db.applyReclass(ctx, tx, actor, r, versions[i], &res); err != nil {
				return fmt.Errorf("tool %s: %w", r.Tool, err)
			}
		}
		return nil
	})
	if err != nil {
		return ReclassifyResult{}, err
	}
	res.Checked = len(plan)
	return res, nil
}

func (db *DB) applyReclass(ctx context.Context, tx *sqlx.Tx, actor string, r importer.Reclass, version int, res *ReclassifyResult) error {
	q := `UPDATE tools SET detected_class = ?, reasons_json = ?, class = ?, rules_version = ?, updated_at = ?`
	if !r.KeepOverride {
		q += `, risk_override_reason = '', risk_override_by = ''`
	}
	// rules_version = the version read: a tool re-imported meanwhile is
	// already current and is left alone.
	out, err := tx.ExecContext(ctx, q+` WHERE name = ? AND rules_version = ?`, r.Assessment.Class.String(),
		auditJSON(nonNil(r.Assessment.Reasons)), r.Class.String(), risk.RulesVersion, formatTime(db.Now()), r.Tool, version)
	if err != nil {
		return err
	}
	if n, err := out.RowsAffected(); err != nil || n == 0 {
		return err
	}
	if r.Lowered {
		res.Lowered++
	}
	if !r.Changed() {
		return nil
	}
	if err := db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "tool.reclassify", Subject: SubjectTool(r.Tool),
		Before: auditJSON(map[string]any{"class": r.Before.Class, "detected": r.Before.DetectedClass, "rules_version": version}),
		After: auditJSON(map[string]any{"class": r.Class, "detected": r.Assessment.Class, "rules_version": risk.RulesVersion,
			"lower_verdict_kept": r.Lowered})}); err != nil {
		return err
	}
	if r.Class == r.Before.Class {
		return nil
	}
	res.Raised++
	var id int64
	if err := tx.GetContext(ctx, &id, `SELECT id FROM tools WHERE name = ?`, r.Tool); err != nil {
		return err
	}
	// A class change moves the policy version, voiding pending requests
	// made against the old class (as RaiseToolClass does).
	if err := db.bumpPolicyVersion(ctx, tx, actor, id); err != nil {
		return err
	}
	if r.Suspend == "" {
		return nil
	}
	res.Suspended++
	return db.suspendTool(ctx, tx, actor, r.Tool, r.Suspend)
}

// outdatedTools returns the tools classified by another rules version,
// with that version.
func outdatedTools(ctx context.Context, tx *sqlx.Tx) ([]importer.Stored, []int, error) {
	stored, versions, err := loadStored(ctx, tx, `WHERE t.rules_version <> ? ORDER BY t.id`, risk.RulesVersion)
	if err != nil {
		return nil, nil, fmt.Errorf("outdated tools: %w", err)
	}
	return stored, versions, nil
}
