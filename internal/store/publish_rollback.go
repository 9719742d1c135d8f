package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/gate"
	"github.com/toolgate/toolgate/internal/risk"
)

// Rollback publishes the content of version `from` as a new version: new
// number, new issued/expires times, signed with the active key (R11: a
// runtime never accepts an older version, so going back means going
// forward with old content). Each tool goes through the same gate as a
// publish (R14, gate.Decide) with the approvals valid now: a risky tool
// whose approval became void since (a re-import rewrote it, say) is left
// out with the reason, and the rest ships. Audited as "bundle.rollback".
// Like Publish, it signs outside the write transaction and builds again
// when the state moved meanwhile.
func (db *DB) Rollback(ctx context.Context, req PublishRequest, from int64) (*BundleRecord, error) {
	if req.Note == "" {
		req.Note = fmt.Sprintf("Rollback to the content of v%d", from)
	}
	return db.publishWith(ctx, req, func(ctx context.Context, tx *sqlx.Tx, ttl time.Duration) (*Preview, error) {
		return db.rollbackPreview(ctx, tx, from, ttl)
	})
}

// PreviewRollback is what rolling back to version from would sign now:
// the tools the gate leaves out, and the difference from the current
// version. It signs and stores nothing.
func (db *DB) PreviewRollback(ctx context.Context, from int64) (*Preview, error) {
	var p *Preview
	err := db.readTx(ctx, "preview rollback", func(tx *sqlx.Tx) error {
		var err error
		p, err = db.rollbackPreview(ctx, tx, from, 0)
		return err
	})
	return p, err
}

// rollbackPreview rebuilds version from's tools, each decided by the gate,
// as the version after the current one.
func (db *DB) rollbackPreview(ctx context.Context, tx *sqlx.Tx, from int64, ttl time.Duration) (*Preview, error) {
	old, err := bundleByVersion(ctx, tx, from)
	if err != nil {
		return nil, err
	}
	cur, err := latestBundle(ctx, tx)
	if err != nil {
		return nil, err
	}
	gen, err := publishGeneration(ctx, tx)
	if err != nil {
		return nil, err
	}
	ob, err := old.Bundle()
	if err != nil {
		return nil, fmt.Errorf("rollback: %w", err)
	}
	cb, err := cur.Bundle()
	if err != nil {
		return nil, fmt.Errorf("rollback: %w", err)
	}
	approvals, err := approvedRequests(ctx, tx)
	if err != nil {
		return nil, err
	}
	detected, err := detectedClasses(ctx, tx)
	if err != nil {
		return nil, err
	}
	p := &Preview{Current: cur, Generation: gen, RollbackOf: from}
	tools, err := gateTools(ob, approvals, detected, &p.Withheld)
	if err != nil {
		return nil, err
	}
	next, err := bundle.Build(bundle.BuildInput{Version: cur.Version + 1, Now: db.Now(), TTL: ttl, Sources: ob.Sources, Tools: tools})
	if err != nil {
		return nil, fmt.Errorf("rollback: build: %w", err)
	}
	p.Next, p.Changes = next, bundle.Diff(cb, next)
	return p, nil
}

// gateTools passes each tool of an old bundle through the gate, appending
// the refused ones to withheld, and returns the rest as bundle inputs with
// the approvals that cover them now. A tool the console no longer knows
// keeps its signed class as the engine's verdict.
func gateTools(b *bundle.Bundle, approvals map[string][]gate.Approval, detected map[string]risk.Class, withheld *[]WithheldTool) ([]bundle.ToolInput, error) {
	sources := map[string]bundle.Source{}
	for _, s := range b.Sources {
		sources[s.Name] = s
	}
	var out []bundle.ToolInput
	for _, t := range b.Tools {
		in := bundle.ToolInput{Name: t.Name, Source: t.Source, Method: t.Method, Path: t.Path, Description: t.Description,
			Params: t.Params, Body: t.Body, InputSchema: t.InputSchema,
			Assessment: risk.Assessment{Class: t.Risk, Reasons: t.Reasons}, Policy: t.Policy}
		in.Policy.Exposed = true
		gt := gate.Tool{Input: in, Source: sources[t.Source], Detected: t.Risk}
		if c, ok := detected[t.Name]; ok {
			gt.Detected = c
		}
		d, err := gate.Decide(gt, approvals[t.Name])
		if err != nil {
			return nil, err
		}
		if !d.Publishable() {
			*withheld = append(*withheld, WithheldTool{Tool: t.Name, Reason: d.Reason})
			continue
		}
		in.Approvals = d.Approvals
		out = append(out, in)
	}
	return out, nil
}

// detectedClasses is the risk engine's verdict on every tool by name.
func detectedClasses(ctx context.Context, tx *sqlx.Tx) (map[string]risk.Class, error) {
	var rows []struct {
		Name  string `db:"name"`
		Class string `db:"detected_class"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT name, detected_class FROM tools`); err != nil {
		return nil, fmt.Errorf("detected classes: %w", err)
	}
	out := make(map[string]risk.Class, len(rows))
	for _, r := range rows {
		var c risk.Class
		if err := c.UnmarshalText([]byte(r.Class)); err != nil {
			return nil, fmt.Errorf("tool %s: detected class: %w", r.Name, err)
		}
		out[r.Name] = c
	}
	return out, nil
}
