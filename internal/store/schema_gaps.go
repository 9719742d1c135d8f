package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
)

// ErrSchemaGapsUnacknowledged is returned (joined with an Invalid error the
// console shows) when a tool whose input schema is incomplete would be
// exposed before anyone acknowledged it.
var ErrSchemaGapsUnacknowledged = errors.New("store: schema gaps not acknowledged")

// toolGaps reads a tool's schema gaps (openapi.Operation.SchemaGaps, kept
// inline in operation_json) and who acknowledged them.
func toolGaps(ctx context.Context, tx *sqlx.Tx, where string, arg any) (name string, gaps []string, ackBy string, err error) {
	var row struct {
		Name   string `db:"name"`
		OpJSON string `db:"operation_json"`
		AckBy  string `db:"schema_gaps_ack_by"`
	}
	if err := tx.GetContext(ctx, &row, `SELECT name, operation_json, schema_gaps_ack_by FROM tools WHERE `+where, arg); err != nil {
		return "", nil, "", err
	}
	gaps, err = opSchemaGaps(row.Name, row.OpJSON)
	if err != nil {
		return "", nil, "", err
	}
	return row.Name, gaps, row.AckBy, nil
}

// opSchemaGaps reads the schema gaps of tool name from its operation_json
// (they are kept inline, never in a schema blob).
func opSchemaGaps(name, opJSON string) ([]string, error) {
	var op struct {
		SchemaGaps []string `json:"schema_gaps"`
	}
	if err := json.Unmarshal([]byte(opJSON), &op); err != nil {
		return nil, fmt.Errorf("tool %s operation: %w", name, err)
	}
	return op.SchemaGaps, nil
}

// gapsAckVoid reports whether a re-import voids the acknowledgement of a
// stored tool's schema gaps: it was acknowledged, and the new gaps differ
// (other than by moving in the document), so they have not been seen.
func gapsAckVoid(s sourceToolRow, next []string) (bool, error) {
	if s.AckBy == "" {
		return false, nil
	}
	gaps, err := opSchemaGaps(s.Name, s.OpJSON)
	if err != nil {
		return false, err
	}
	return !slices.Equal(withoutPositions(gaps), withoutPositions(next)), nil
}

// checkSchemaGaps refuses to expose a tool whose input schema has parts
// toolgate could not expand (an unresolved $ref, a body over the expansion
// bounds) until someone acknowledged them: an agent could send anything
// there, and the admin must have seen it. It is called on the one write
// path of tool policies (writePolicy), so editor, bulk actions and approved
// change requests all pass it.
func checkSchemaGaps(ctx context.Context, tx *sqlx.Tx, toolID int64) error {
	_, gaps, ackBy, err := toolGaps(ctx, tx, "id = ?", toolID)
	if err != nil || len(gaps) == 0 || ackBy != "" {
		return err
	}
	return errors.Join(apperr.Invalidf("This tool's input schema is incomplete (%d part(s) accept any value: %s). "+
		"Acknowledge the incomplete schema on the tool page before exposing it; nothing was saved.", len(gaps), gaps[0]),
		ErrSchemaGapsUnacknowledged)
}

// AcknowledgeSchemaGaps records that actor has seen that the tool's input
// schema is incomplete, which allows exposing it. A tool without gaps is
// refused: there is nothing to acknowledge.
func (db *DB) AcknowledgeSchemaGaps(ctx context.Context, actor, toolName string) error {
	return db.inTx(ctx, "acknowledge schema gaps", func(tx *sqlx.Tx) error {
		name, gaps, ackBy, err := toolGaps(ctx, tx, "name = ?", toolName)
		if err != nil {
			return notFound(err, "The tool")
		}
		if len(gaps) == 0 {
			return apperr.Invalidf("The input schema of %s is complete: there is nothing to acknowledge.", name)
		}
		if ackBy != "" {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tools SET schema_gaps_ack_by = ? WHERE name = ?`, actor, name); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "tool.acknowledge_schema_gaps", Subject: SubjectTool(name),
			Before: auditJSON(map[string]any{"schema_gaps": gaps, "acknowledged_by": ""}),
			After:  auditJSON(map[string]any{"schema_gaps": gaps, "acknowledged_by": actor})})
	})
}

// SchemaGapsAckBy returns who acknowledged the tool's schema gaps, or "".
func (db *DB) SchemaGapsAckBy(ctx context.Context, toolName string) (string, error) {
	var ackBy string
	err := db.readTx(ctx, "schema gaps acknowledgement", func(tx *sqlx.Tx) error {
		return notFound(tx.GetContext(ctx, &ackBy, `SELECT schema_gaps_ack_by FROM tools WHERE name = ?`, toolName), "The tool")
	})
	return ackBy, err
}

// gapPosition is the "file:line:col: " a gap starts with; lines moving
// elsewhere in the document do not change what was acknowledged.
var gapPosition = regexp.MustCompile(`^[^\n]*?:\d+:\d+: `)

func withoutPositions(gaps []string) []string {
	out := make([]string, len(gaps))
	for i, g := range gaps {
		out[i] = gapPosition.ReplaceAllString(g, "")
	}
	return out
}
