package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// toolDefinition is one tool's stored operation and source: everything its
// definition digest (R13) is made of except the class and policy, which
// the caller chooses (as stored, or as a change request would leave them).
type toolDefinition struct {
	name   string
	op     openapi.Operation
	source bundle.Source
}

// loadDefinition reads the operation and source of tool toolID.
func loadDefinition(ctx context.Context, tx *sqlx.Tx, toolID int64) (*toolDefinition, error) {
	var row struct {
		Name     string `db:"name"`
		OpJSON   string `db:"operation_json"`
		Source   string `db:"source_name"`
		Origin   string `db:"origin"`
		BasePath string `db:"base_path"`
	}
	if err := tx.GetContext(ctx, &row, `SELECT t.name, t.operation_json, s.name AS source_name, s.origin, s.base_path
		FROM tools t JOIN sources s ON s.id = t.source_id WHERE t.id = ?`, toolID); err != nil {
		return nil, notFound(err, "The tool")
	}
	d := &toolDefinition{name: row.Name, source: bundle.Source{Name: row.Source, Origin: row.Origin, BasePath: row.BasePath}}
	if err := json.Unmarshal([]byte(row.OpJSON), &d.op); err != nil {
		return nil, fmt.Errorf("tool %s: operation: %w", row.Name, err)
	}
	return d, nil
}

// published is the bundle tool d would be with class and policy p, its
// digest included.
func (d *toolDefinition) published(class risk.Class, p policy.Policy) (bundle.Tool, error) {
	p.Exposed = true
	return bundle.BuildTool(importer.ToolInput(d.name, d.source.Name, d.op, risk.Assessment{Class: class}, p), d.source)
}

// refusal is the runtime executor's reason to refuse d published with
// class and policy p, or nil. A source without an origin cannot be
// published at all and is refused elsewhere, so it is not judged here.
func (d *toolDefinition) refusal(class risk.Class, p policy.Policy) error {
	if d.source.Origin == "" {
		return nil
	}
	bt, err := d.published(class, p)
	if err != nil {
		return err
	}
	return executor.CompileTool(d.source, bt)
}
