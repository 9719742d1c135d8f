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
			(SELECT count(*) FROM change_requests c WHERE c.tool_id = t.id AND c.status = 'approved') AS approved
		FROM tools t JOIN tool_policies p ON p.tool_id = t.id WHERE t.source_id = ?`, pv.Source.ID); err != nil {
		return fmt.Errorf("stored policies: %w", err)
	}
	pin := importer.PinInput{Source: in.Name, Policies: map[string]policy.Policy{}, Approved: map[string]bool{},
		Old: bundle.Source{Name: in.Name, Origin: pv.Source.Origin, BasePath: pv.Source.BasePath},
		New: bundle.Source{Name: in.Name, Origin: pv.Origin, BasePath: in.Doc.BasePath}}
	for _, r := range rows {
		var p policy.Policy
		if err := json.Unmarshal([]byte(r.Policy), &p); err != nil {
			return fmt.Errorf("tool %s policy: %w", r.Name, err)
		}
		pin.Policies[r.Name] = p
		pin.Approved[r.Name] = r.Approved > 0
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

// definitionVoids are the change requests of a source's tools that an
// import's definition changes may void, read in one query each (and only
// when the plan changes a definition) instead of per tool: the pending
// requests and the ids of the approved ones (of every kind), by tool id, in
// id order.
type definitionVoids struct {
	pending  map[int64][]ChangeRequest
	approved map[int64][]int64
}

func readDefinitionVoids(ctx context.Context, tx *sqlx.Tx, sourceID int64, p *importer.Plan) (*definitionVoids, error) {
	out := &definitionVoids{pending: map[int64][]ChangeRequest{}, approved: map[int64][]int64{}}
	if !slices.ContainsFunc(p.Changes, func(c importer.Change) bool { return c.Definition != nil }) {
		return out, nil
	}
	pending, err := selectChangeRequests(ctx, tx, `WHERE c.tool_id IN (SELECT id FROM tools WHERE source_id = ?)
		AND c.status = 'pending' ORDER BY c.id`, sourceID)
	if err != nil {
		return nil, fmt.Errorf("pending requests: %w", err)
	}
	for _, cr := range pending {
		out.pending[cr.ToolID] = append(out.pending[cr.ToolID], cr)
	}
	var approved []struct {
		ID     int64 `db:"id"`
		ToolID int64 `db:"tool_id"`
	}
	if err := tx.SelectContext(ctx, &approved, `SELECT id, tool_id FROM change_requests
		WHERE tool_id IN (SELECT id FROM tools WHERE source_id = ?) AND status = 'approved' ORDER BY id`,
		sourceID); err != nil {
		return nil, fmt.Errorf("approved requests: %w", err)
	}
	for _, r := range approved {
		out.approved[r.ToolID] = append(out.approved[r.ToolID], r.ID)
	}
	return out, nil
}

// applyDefinition records the definition change of tool id: its pending
// and approved change requests become void with the reason (the plan says
// which, see importer.PinDefinitions), and a confirmed change is audited
// as "tool.definition_confirm" with both digests. An approval is void
// because it approved text agents no longer get, whatever part moved; an
// exposed tool is suspended in the same import, and exposing it again
// needs a new approval.
// Audit entries are queued on q, except decide's own, which q is flushed
// before.
func (db *DB) applyDefinition(ctx context.Context, tx *sqlx.Tx, q *auditQueue, actor string, c importer.Change, id int64, v *definitionVoids) error {
	if c.Definition == nil {
		return nil
	}
	if pending := v.pending[id]; len(pending) > 0 {
		if err := q.flush(ctx, tx); err != nil {
			return err
		}
		for i := range pending {
			if err := db.decide(ctx, tx, actor, &pending[i], StatusVoid, nil, "", c.VoidPending); err != nil {
				return err
			}
		}
	}
	if c.VoidApproval {
		why := "Approved, then void on re-import: " + c.Suspend
		if c.Suspend == "" {
			why = "Approved, then void on re-import: " + c.VoidPending
		}
		for _, rid := range v.approved[id] {
			if _, err := tx.ExecContext(ctx, `UPDATE change_requests SET status = 'void', void_reason = ? WHERE id = ?`, why, rid); err != nil {
				return err
			}
			q.add(audit.Entry{Actor: actor, Action: "change_request.void", Subject: SubjectTool(c.Tool),
				Before: auditJSON(map[string]any{"request": rid, "status": StatusApproved}),
				After:  auditJSON(map[string]any{"request": rid, "status": StatusVoid, "void_reason": why})})
		}
	}
	if c.Confirm {
		q.add(audit.Entry{Actor: actor, Action: "tool.definition_confirm", Subject: SubjectTool(c.Tool),
			Before: auditJSON(map[string]any{"digest": c.Definition.OldDigest}),
			After:  auditJSON(map[string]any{"digest": c.Definition.NewDigest, "parts": c.Definition.Parts})})
	}
	return nil
}
