package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/policy"
)

// pinDefinitions compares the definition digest (R13) of every re-imported
// tool before and after the import, with its stored policy and the
// source's origin before and after, and marks the plan (see
// importer.PinDefinitions).
func pinDefinitions(ctx context.Context, tx *sqlx.Tx, pv *ImportPreview, in SourceImport) error {
	if pv.Source == nil {
		return nil
	}
	var rows []struct {
		Name     string `db:"name"`
		Policy   string `db:"policy_json"`
		Approved int    `db:"approved"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT t.name, p.policy_json,
			(SELECT count(*) FROM change_requests c WHERE c.tool_id = t.id AND c.status = 'approved' AND c.kind = ?) AS approved
		FROM tools t JOIN tool_policies p ON p.tool_id = t.id WHERE t.source_id = ?`, string(KindExposeRisky), pv.Source.ID); err != nil {
		return fmt.Errorf("stored policies: %w", err)
	}
	pin := importer.PinInput{Source: in.Name, Policies: map[string]policy.Policy{}, ApprovedExposure: map[string]bool{},
		Old: bundle.Source{Name: in.Name, Origin: pv.Source.Origin, BasePath: pv.Source.BasePath},
		New: bundle.Source{Name: in.Name, Origin: pv.Origin, BasePath: in.Doc.BasePath}}
	for _, r := range rows {
		var p policy.Policy
		if err := json.Unmarshal([]byte(r.Policy), &p); err != nil {
			return fmt.Errorf("tool %s policy: %w", r.Name, err)
		}
		pin.Policies[r.Name] = p
		pin.ApprovedExposure[r.Name] = r.Approved > 0
	}
	return importer.PinDefinitions(pv.Plan, pin)
}

// ErrUnconfirmedDefinitions marks an import refused because the new
// definition of an exposed tool was not confirmed: nothing was imported
// and the same preview may be applied again with the confirmation.
var ErrUnconfirmedDefinitions = errors.New("unconfirmed definition changes")

// unconfirmed refuses an import whose plan changes the definition of an
// exposed tool that nobody confirmed (R13: READ and WRITE tools exposed
// without an approval stay exposed only if the person importing has seen
// and confirmed what agents will read now).
func unconfirmed(p *importer.Plan, confirmed []string) error {
	var missing []string
	for _, c := range p.ToConfirm() {
		if !slices.Contains(confirmed, c.Tool) {
			missing = append(missing, c.Tool)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return errors.Join(apperr.Invalidf("What agents read changes for the exposed tools %s: review the diff and confirm the new definitions to import. Nothing was imported.",
		strings.Join(missing, ", ")), ErrUnconfirmedDefinitions)
}

// applyDefinition records one tool's definition change: its pending
// change requests become void with the reason, its approved exposure too
// when the plan suspends it, and a confirmed change is audited as
// "tool.definition_confirm" with both digests.
func (db *DB) applyDefinition(ctx context.Context, tx *sqlx.Tx, actor string, c importer.Change) error {
	if c.Definition == nil {
		return nil
	}
	var id int64
	if err := tx.GetContext(ctx, &id, `SELECT id FROM tools WHERE name = ?`, c.Tool); err != nil {
		return err
	}
	pending, err := selectChangeRequests(ctx, tx, "WHERE c.tool_id = ? AND c.status = 'pending' ORDER BY c.id", id)
	if err != nil {
		return err
	}
	for i := range pending {
		if err := db.decide(ctx, tx, actor, &pending[i], StatusVoid, nil, "", c.VoidPending); err != nil {
			return err
		}
	}
	if c.VoidApproval {
		if err := db.voidApprovals(ctx, tx, actor, id, c.Tool, "Approved, then void on re-import: "+c.Suspend); err != nil {
			return err
		}
	}
	if c.Confirm {
		return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "tool.definition_confirm", Subject: SubjectTool(c.Tool),
			Before: auditJSON(map[string]any{"digest": c.Definition.OldDigest}),
			After:  auditJSON(map[string]any{"digest": c.Definition.NewDigest, "parts": c.Definition.Parts})})
	}
	return nil
}

// voidApprovals voids the approved exposure of a tool whose definition
// changed: it approved text agents no longer get. The tool is suspended in
// the same import, and exposing it again needs a new approval.
func (db *DB) voidApprovals(ctx context.Context, tx *sqlx.Tx, actor string, toolID int64, tool, why string) error {
	var ids []int64
	if err := tx.SelectContext(ctx, &ids, `SELECT id FROM change_requests WHERE tool_id = ? AND status = 'approved' AND kind = ?`,
		toolID, KindExposeRisky); err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `UPDATE change_requests SET status = 'void', void_reason = ? WHERE id = ?`, why, id); err != nil {
			return err
		}
		if err := db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "change_request.void", Subject: SubjectTool(tool),
			Before: auditJSON(map[string]any{"request": id, "status": StatusApproved}),
			After:  auditJSON(map[string]any{"request": id, "status": StatusVoid, "void_reason": why})}); err != nil {
			return err
		}
	}
	return nil
}
