package store

import (
	"context"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/risk"
)

// maxRiskReason bounds the written reason of a class change.
const maxRiskReason = 1000

// RaiseToolClass raises the class in force of a tool, recorded with the
// admin's reason (tools.risk_override_*) and audited as "tool.raise_risk".
// Only raising is immediate; lowering is a change request (R10). Raising an
// exposed tool to DESTRUCTIVE or PRIVILEGED suspends its exposure, since
// exposing such a tool needs an approved request. Like any class change it
// moves the policy version (bumpPolicyVersion).
func (db *DB) RaiseToolClass(ctx context.Context, actor, name string, to risk.Class, reason string) error {
	reason = strings.TrimSpace(reason)
	switch {
	case !to.Valid():
		return apperr.Invalidf("Choose a risk class.")
	case reason == "":
		return apperr.Invalidf("Say why the class is raised.")
	case len(reason) > maxRiskReason:
		return apperr.Invalidf("Keep the reason under %d characters.", maxRiskReason)
	}
	return db.inTx(ctx, "raise tool class", func(tx *sqlx.Tx) error {
		rec, err := toolPolicyBy(ctx, tx, "t.name = ?", name)
		if err != nil {
			return err
		}
		if to <= rec.Class {
			return apperr.Invalidf("%s is already %s: choose a higher class (lowering a class needs an approved request).",
				name, rec.Class)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tools SET class = ?, risk_override_reason = ?, risk_override_by = ?,
			updated_at = ? WHERE id = ?`, to.String(), reason, actor, formatTime(db.Now()), rec.ToolID); err != nil {
			return err
		}
		if err := db.bumpPolicyVersion(ctx, tx, actor, rec.ToolID); err != nil {
			return err
		}
		if err := db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "tool.raise_risk", Subject: rec.Subject(),
			Before: auditJSON(map[string]any{"class": rec.Class}),
			After:  auditJSON(map[string]any{"class": to, "reason": reason})}); err != nil {
			return err
		}
		if rec.Policy.Exposed && to >= risk.Destructive {
			return db.suspendTool(ctx, tx, actor, name, "The risk class was raised to "+to.String()+
				"; exposing it again needs an explicit, approved request.")
		}
		return nil
	})
}
