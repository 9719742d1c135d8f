package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// ToolSummary is one tool as the tools list shows it.
type ToolSummary struct {
	ID              int64
	Source          string
	Name            string
	Method          string
	Path            string
	PathKey         string
	Summary         string
	Deprecated      bool
	DetectedClass   risk.Class
	Class           risk.Class
	Reasons         []risk.Reason
	Policy          policy.Policy
	Exposed         bool
	SuspendedReason string
	PolicyVersion   int64
	RemovedAt       *time.Time
}

// Tool is everything stored about one tool.
type Tool struct {
	ToolSummary
	OpKey              string
	Tags               []string
	Operation          openapi.Operation
	RiskOverrideReason string
	RiskOverrideBy     string
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

type toolRow struct {
	ID              int64   `db:"id"`
	Source          string  `db:"source"`
	Name            string  `db:"name"`
	Method          string  `db:"method"`
	Path            string  `db:"path"`
	PathKey         string  `db:"path_key"`
	Summary         string  `db:"summary"`
	Deprecated      bool    `db:"deprecated"`
	DetectedClass   string  `db:"detected_class"`
	Class           string  `db:"class"`
	ReasonsJSON     string  `db:"reasons_json"`
	PolicyJSON      string  `db:"policy_json"`
	Exposed         bool    `db:"exposed"`
	SuspendedReason string  `db:"suspended_reason"`
	PolicyVersion   int64   `db:"version"`
	RemovedAt       *string `db:"removed_at"`
}

const toolSummaryColumns = `t.id, s.name AS source, t.name, t.method, t.path, t.path_key, t.summary, t.deprecated,
	t.detected_class, t.class, t.reasons_json, p.policy_json, p.exposed, p.suspended_reason, p.version, t.removed_at`

const toolFrom = ` FROM tools t JOIN sources s ON s.id = t.source_id JOIN tool_policies p ON p.tool_id = t.id`

func (r toolRow) summary() (ToolSummary, error) {
	out := ToolSummary{ID: r.ID, Source: r.Source, Name: r.Name, Method: r.Method, Path: r.Path, PathKey: r.PathKey,
		Summary: r.Summary, Deprecated: r.Deprecated, Exposed: r.Exposed, SuspendedReason: r.SuspendedReason,
		PolicyVersion: r.PolicyVersion}
	var err error
	if out.DetectedClass, err = risk.ParseClass(r.DetectedClass); err != nil {
		return out, err
	}
	if out.Class, err = risk.ParseClass(r.Class); err != nil {
		return out, err
	}
	if err := json.Unmarshal([]byte(r.ReasonsJSON), &out.Reasons); err != nil {
		return out, fmt.Errorf("tool %s reasons: %w", r.Name, err)
	}
	if err := json.Unmarshal([]byte(r.PolicyJSON), &out.Policy); err != nil {
		return out, fmt.Errorf("tool %s policy: %w", r.Name, err)
	}
	if r.RemovedAt != nil {
		t, err := parseTime(*r.RemovedAt)
		if err != nil {
			return out, err
		}
		out.RemovedAt = &t
	}
	return out, nil
}

// ToolByName returns one tool, removed or not.
func (db *DB) ToolByName(ctx context.Context, name string) (*Tool, error) {
	var out *Tool
	err := db.readTx(ctx, "tool by name", func(tx *sqlx.Tx) error {
		var row struct {
			toolRow
			OpKey          string `db:"op_key"`
			OpJSON         string `db:"operation_json"`
			OverrideReason string `db:"risk_override_reason"`
			OverrideBy     string `db:"risk_override_by"`
			CreatedAt      string `db:"created_at"`
			UpdatedAt      string `db:"updated_at"`
		}
		if err := tx.GetContext(ctx, &row, `SELECT `+toolSummaryColumns+`, t.op_key, t.operation_json,
			t.risk_override_reason, t.risk_override_by, t.created_at, t.updated_at`+toolFrom+` WHERE t.name = ?`, name); err != nil {
			return notFound(err, "The tool")
		}
		sum, err := row.summary()
		if err != nil {
			return err
		}
		out = &Tool{ToolSummary: sum, OpKey: row.OpKey, RiskOverrideReason: row.OverrideReason, RiskOverrideBy: row.OverrideBy}
		opJSON, err := newBlobReader(tx).unpack(ctx, row.OpJSON)
		if err != nil {
			return fmt.Errorf("tool %s operation: %w", name, err)
		}
		if err := json.Unmarshal([]byte(opJSON), &out.Operation); err != nil {
			return fmt.Errorf("tool %s operation: %w", name, err)
		}
		if out.CreatedAt, err = parseTime(row.CreatedAt); err != nil {
			return err
		}
		if out.UpdatedAt, err = parseTime(row.UpdatedAt); err != nil {
			return err
		}
		return tx.SelectContext(ctx, &out.Tags, `SELECT tag FROM tool_tags WHERE tool_id = ? ORDER BY tag`, out.ID)
	})
	return out, err
}
