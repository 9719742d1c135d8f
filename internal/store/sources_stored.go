package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/risk"
)

// storedTools returns every tool of a source, removed ones included.
func storedTools(ctx context.Context, tx *sqlx.Tx, sourceID int64) ([]importer.Stored, error) {
	out, _, err := loadStored(ctx, tx, `WHERE t.source_id = ? ORDER BY t.id`, sourceID)
	if err != nil {
		return nil, fmt.Errorf("stored tools: %w", err)
	}
	return out, nil
}

// loadStored reads the tools that where selects as the importer sees them
// (operation JSON with its shared schemas expanded), with the rules
// version that classified each.
func loadStored(ctx context.Context, tx *sqlx.Tx, where string, args ...any) ([]importer.Stored, []int, error) {
	var rows []struct {
		Name       string  `db:"name"`
		OpKey      string  `db:"op_key"`
		OpJSON     string  `db:"operation_json"`
		Detected   string  `db:"detected_class"`
		Class      string  `db:"class"`
		OverrideBy string  `db:"risk_override_by"`
		RemovedAt  *string `db:"removed_at"`
		Exposed    bool    `db:"exposed"`
		Version    int     `db:"rules_version"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT t.name, t.op_key, t.operation_json, t.detected_class, t.class,
		t.risk_override_by, t.removed_at, COALESCE(p.exposed, 0) AS exposed, t.rules_version
		FROM tools t LEFT JOIN tool_policies p ON p.tool_id = t.id `+where, args...); err != nil {
		return nil, nil, err
	}
	out := make([]importer.Stored, len(rows))
	versions := make([]int, len(rows))
	blobs := newBlobReader(tx)
	ops := make([]string, len(rows))
	for i, r := range rows {
		ops[i] = r.OpJSON
	}
	if err := blobs.prefetch(ctx, ops); err != nil {
		return nil, nil, err
	}
	for i, r := range rows {
		s := importer.Stored{Name: r.Name, OpKey: r.OpKey, Overridden: r.OverrideBy != "", Removed: r.RemovedAt != nil, Exposed: r.Exposed}
		opJSON, err := blobs.unpack(ctx, r.OpJSON)
		if err != nil {
			return nil, nil, fmt.Errorf("stored tool %s: %w", r.Name, err)
		}
		if err = json.Unmarshal([]byte(opJSON), &s.Op); err != nil {
			return nil, nil, fmt.Errorf("stored tool %s: %w", r.Name, err)
		}
		if s.DetectedClass, err = risk.ParseClass(r.Detected); err != nil {
			return nil, nil, err
		}
		if s.Class, err = risk.ParseClass(r.Class); err != nil {
			return nil, nil, err
		}
		out[i], versions[i] = s, r.Version
	}
	return out, versions, nil
}

// importStamp digests everything planImport read that can change without
// an import of this source bumping its revision: the source row, the
// class, override, removal and exposure of its tools, and the set of tool
// names in the project (tools are never deleted, so count and highest id
// change whenever a name is added). It reads no operation JSON, so it is
// cheap enough to run again inside the write transaction.
func importStamp(ctx context.Context, tx *sqlx.Tx, source string) (string, error) {
	h := sha256.New()
	var names struct {
		N   int64 `db:"n"`
		Max int64 `db:"max_id"`
	}
	if err := tx.GetContext(ctx, &names, `SELECT COUNT(*) AS n, COALESCE(MAX(id), 0) AS max_id FROM tools`); err != nil {
		return "", fmt.Errorf("import stamp: %w", err)
	}
	fmt.Fprintf(h, "names %d %d\n", names.N, names.Max)
	var srcRows []struct {
		ID       int64  `db:"id"`
		Revision int64  `db:"revision"`
		Origin   string `db:"origin"`
	}
	if err := tx.SelectContext(ctx, &srcRows, `SELECT id, revision, origin FROM sources WHERE name = ?`, source); err != nil {
		return "", fmt.Errorf("import stamp: %w", err)
	}
	for _, r := range srcRows {
		fmt.Fprintf(h, "source %d %d %q\n", r.ID, r.Revision, r.Origin)
		var tools []struct {
			ID         int64  `db:"id"`
			Name       string `db:"name"`
			OpKey      string `db:"op_key"`
			Detected   string `db:"detected_class"`
			Class      string `db:"class"`
			OverrideBy string `db:"risk_override_by"`
			RemovedAt  string `db:"removed_at"`
			Exposed    bool   `db:"exposed"`
			Version    int64  `db:"version"`
		}
		if err := tx.SelectContext(ctx, &tools, `SELECT t.id, t.name, t.op_key, t.detected_class, t.class, t.risk_override_by,
			COALESCE(t.removed_at, '') AS removed_at, COALESCE(p.exposed, 0) AS exposed, COALESCE(p.version, 0) AS version
			FROM tools t LEFT JOIN tool_policies p ON p.tool_id = t.id WHERE t.source_id = ? ORDER BY t.id`, r.ID); err != nil {
			return "", fmt.Errorf("import stamp: %w", err)
		}
		for _, t := range tools {
			fmt.Fprintf(h, "%d %q %q %q %q %q %q %t %d\n", t.ID, t.Name, t.OpKey, t.Detected, t.Class, t.OverrideBy, t.RemovedAt, t.Exposed, t.Version)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// projectToolNames is every tool name in the project, removed tools too:
// a name, once given, stays with its operation.
func projectToolNames(ctx context.Context, tx *sqlx.Tx) (map[string]bool, error) {
	var names []string
	if err := tx.SelectContext(ctx, &names, `SELECT name FROM tools`); err != nil {
		return nil, fmt.Errorf("tool names: %w", err)
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out, nil
}
