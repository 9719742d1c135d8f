package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// settingDefaults is the settings key holding policy.ProjectDefaults.
const settingDefaults = "defaults"

// DefaultsRecord is the project defaults with their optimistic version.
// Version 0 means nobody saved defaults yet: Defaults are the built-in ones.
type DefaultsRecord struct {
	Defaults  policy.ProjectDefaults
	Version   int64
	UpdatedAt time.Time
	UpdatedBy string
}

// DefaultsConflictError is returned by SaveProjectDefaults when the stored
// version moved since the page loaded; Current is what is stored now.
type DefaultsConflictError struct {
	Current *DefaultsRecord
}

func (e *DefaultsConflictError) Error() string {
	return fmt.Sprintf("project defaults: version is now %d", e.Current.Version)
}

// Unwrap makes the error an apperr.Conflict.
func (e *DefaultsConflictError) Unwrap() error {
	return apperr.Conflictf("Someone else saved the project defaults after you opened them. Review the current values and save again.")
}

func projectDefaults(ctx context.Context, tx *sqlx.Tx) (*DefaultsRecord, error) {
	var row struct {
		Value     string `db:"value_json"`
		Version   int64  `db:"version"`
		UpdatedAt string `db:"updated_at"`
		UpdatedBy string `db:"updated_by"`
	}
	err := tx.GetContext(ctx, &row, `SELECT value_json, version, updated_at, updated_by FROM settings WHERE key = ?`, settingDefaults)
	if errors.Is(err, sql.ErrNoRows) {
		return &DefaultsRecord{Defaults: policy.BuiltinDefaults()}, nil
	}
	if err != nil {
		return nil, err
	}
	out := &DefaultsRecord{Version: row.Version, UpdatedBy: row.UpdatedBy}
	if err := json.Unmarshal([]byte(row.Value), &out.Defaults); err != nil {
		return nil, fmt.Errorf("decode project defaults: %w", err)
	}
	if out.UpdatedAt, err = parseTime(row.UpdatedAt); err != nil {
		return nil, err
	}
	return out, nil
}

// ProjectDefaults returns the stored project defaults, or the built-in ones
// (Version 0) when none were saved. New tools start from these.
func (db *DB) ProjectDefaults(ctx context.Context) (*DefaultsRecord, error) {
	var out *DefaultsRecord
	err := db.readTx(ctx, "project defaults", func(tx *sqlx.Tx) error {
		var err error
		out, err = projectDefaults(ctx, tx)
		return err
	})
	return out, err
}

// SaveProjectDefaults validates and stores d, audited as "defaults.change"
// on "settings:defaults". expectedVersion is the version the page showed
// (0 for the built-in defaults); a moved version is a *DefaultsConflictError.
// Defaults apply to tools imported from now on; existing tools change only
// through the tools page's "apply defaults" bulk action.
func (db *DB) SaveProjectDefaults(ctx context.Context, actor string, expectedVersion int64, d policy.ProjectDefaults) (*DefaultsRecord, error) {
	if err := d.Validate(); err != nil {
		return nil, validationProblem(err)
	}
	var out *DefaultsRecord
	err := db.inTx(ctx, "save project defaults", func(tx *sqlx.Tx) error {
		cur, err := projectDefaults(ctx, tx)
		if err != nil {
			return err
		}
		if cur.Version != expectedVersion {
			return &DefaultsConflictError{Current: cur}
		}
		now := formatTime(db.Now())
		if cur.Version == 0 {
			_, err = tx.ExecContext(ctx, `INSERT INTO settings (key, value_json, version, updated_at, updated_by)
				VALUES (?, ?, 1, ?, ?)`, settingDefaults, auditJSON(d), now, actor)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE settings SET value_json = ?, version = version + 1, updated_at = ?,
				updated_by = ? WHERE key = ? AND version = ?`, auditJSON(d), now, actor, settingDefaults, cur.Version)
		}
		if err != nil {
			return err
		}
		if err := db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "defaults.change", Subject: "settings:defaults",
			Before: auditJSON(cur.Defaults), After: auditJSON(d)}); err != nil {
			return err
		}
		out, err = projectDefaults(ctx, tx)
		return err
	})
	return out, err
}

// ToolStates returns every current (not removed) tool as the defaults page
// needs it for policy.CountChanged.
func (db *DB) ToolStates(ctx context.Context) ([]policy.ToolState, error) {
	var out []policy.ToolState
	err := db.readTx(ctx, "tool states", func(tx *sqlx.Tx) error {
		var rows []struct {
			Method string `db:"method"`
			Class  string `db:"class"`
			Policy string `db:"policy_json"`
		}
		if err := tx.SelectContext(ctx, &rows, `SELECT t.method, t.class, p.policy_json FROM tools t
			JOIN tool_policies p ON p.tool_id = t.id WHERE t.removed_at IS NULL ORDER BY t.id`); err != nil {
			return err
		}
		out = make([]policy.ToolState, len(rows))
		for i, r := range rows {
			c, err := risk.ParseClass(r.Class)
			if err != nil {
				return err
			}
			out[i] = policy.ToolState{Method: r.Method, Class: c}
			if err := json.Unmarshal([]byte(r.Policy), &out[i].Policy); err != nil {
				return fmt.Errorf("decode policy: %w", err)
			}
		}
		return nil
	})
	return out, err
}
