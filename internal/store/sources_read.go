package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/risk"
)

type sourceRow struct {
	ID             int64  `db:"id"`
	Name           string `db:"name"`
	Title          string `db:"title"`
	APIVersion     string `db:"api_version"`
	SpecVersion    string `db:"spec_version"`
	Origin         string `db:"origin"`
	BasePath       string `db:"base_path"`
	WarningsJSON   string `db:"warnings_json"`
	SkippedJSON    string `db:"skipped_json"`
	DocumentSHA256 string `db:"document_sha256"`
	Revision       int64  `db:"revision"`
	ImportedAt     string `db:"imported_at"`
	ImportedBy     string `db:"imported_by"`
}

const sourceColumns = `id, name, title, api_version, spec_version, origin, base_path, warnings_json, skipped_json,
	document_sha256, revision, imported_at, imported_by`

func (r sourceRow) source() (*Source, error) {
	s := &Source{ID: r.ID, Name: r.Name, Title: r.Title, APIVersion: r.APIVersion, SpecVersion: r.SpecVersion,
		Origin: r.Origin, BasePath: r.BasePath, DocumentSHA256: r.DocumentSHA256, Revision: r.Revision,
		ImportedBy: r.ImportedBy, Counts: map[risk.Class]int{}}
	if err := json.Unmarshal([]byte(r.WarningsJSON), &s.Warnings); err != nil {
		return nil, fmt.Errorf("source %s warnings: %w", r.Name, err)
	}
	if err := json.Unmarshal([]byte(r.SkippedJSON), &s.Skipped); err != nil {
		return nil, fmt.Errorf("source %s skipped: %w", r.Name, err)
	}
	var err error
	s.ImportedAt, err = parseTime(r.ImportedAt)
	return s, err
}

// sourceCounts fills the class counts of the given sources in one query.
func sourceCounts(ctx context.Context, tx *sqlx.Tx, byID map[int64]*Source) error {
	var rows []struct {
		SourceID int64  `db:"source_id"`
		Class    string `db:"class"`
		Removed  bool   `db:"removed"`
		N        int    `db:"n"`
		Exposed  int    `db:"exposed"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT t.source_id, t.class, t.removed_at IS NOT NULL AS removed,
		count(*) AS n, COALESCE(sum(p.exposed), 0) AS exposed
		FROM tools t LEFT JOIN tool_policies p ON p.tool_id = t.id GROUP BY 1, 2, 3`); err != nil {
		return fmt.Errorf("source counts: %w", err)
	}
	for _, r := range rows {
		s := byID[r.SourceID]
		if s == nil {
			continue
		}
		if r.Removed {
			s.Removed += r.N
			continue
		}
		c, err := risk.ParseClass(r.Class)
		if err != nil {
			return err
		}
		s.Counts[c] += r.N
		s.Exposed += r.Exposed
	}
	return nil
}

func sourceByName(ctx context.Context, tx *sqlx.Tx, name string) (*Source, error) {
	var row sourceRow
	if err := tx.GetContext(ctx, &row, `SELECT `+sourceColumns+` FROM sources WHERE name = ?`, name); err != nil {
		return nil, notFound(err, "The source")
	}
	s, err := row.source()
	if err != nil {
		return nil, err
	}
	return s, sourceCounts(ctx, tx, map[int64]*Source{s.ID: s})
}

// SourceByName returns one source with its counts.
func (db *DB) SourceByName(ctx context.Context, name string) (*Source, error) {
	var out *Source
	err := db.readTx(ctx, "source by name", func(tx *sqlx.Tx) error {
		var err error
		out, err = sourceByName(ctx, tx, name)
		return err
	})
	return out, err
}

// ListSources returns every source by name, with counts.
func (db *DB) ListSources(ctx context.Context) ([]*Source, error) {
	var out []*Source
	err := db.readTx(ctx, "list sources", func(tx *sqlx.Tx) error {
		var rows []sourceRow
		if err := tx.SelectContext(ctx, &rows, `SELECT `+sourceColumns+` FROM sources ORDER BY name`); err != nil {
			return err
		}
		byID := map[int64]*Source{}
		for _, r := range rows {
			s, err := r.source()
			if err != nil {
				return err
			}
			out = append(out, s)
			byID[s.ID] = s
		}
		return sourceCounts(ctx, tx, byID)
	})
	return out, err
}
