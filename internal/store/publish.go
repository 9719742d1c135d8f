package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/bundle"
)

// PublishRequest is what Publish and Rollback need besides the project's
// state: who, why, and the key that signs.
type PublishRequest struct {
	Actor string
	Note  string
	Key   bundle.SigningKey
	// TTL is how long the bundle is valid; 0 means bundle.DefaultTTL.
	TTL time.Duration
}

// Preview is what publishing (or rolling back) now would do: the current
// bundle (nil before the first publish), the next one, the difference, and
// the tools left out because the gate refuses them (gate.Decide).
type Preview struct {
	Current  *BundleRecord
	Next     *bundle.Bundle
	Changes  bundle.Changes
	Withheld []WithheldTool
	// Generation is the PublishGeneration the preview was built from: the
	// same number later means the same preview.
	Generation int64
	// RollbackOf is the version whose content a rollback republishes; 0
	// for a publish.
	RollbackOf int64
}

// buildFunc builds, in tx, the bundle a publish path signs; ttl 0 is the
// default.
type buildFunc func(ctx context.Context, tx *sqlx.Tx, ttl time.Duration) (*Preview, error)

// PreviewPublish builds the next bundle without signing or storing it. A
// state that cannot be published (a source without origin, say) is an
// Invalid error whose message names the problem.
func (db *DB) PreviewPublish(ctx context.Context) (*Preview, error) {
	var p *Preview
	err := db.readTx(ctx, "preview publish", func(tx *sqlx.Tx) error {
		var err error
		p, err = db.preview(ctx, tx, 0)
		return err
	})
	return p, err
}

// preview builds the next bundle from the current state in tx; ttl 0 is
// the default.
func (db *DB) preview(ctx context.Context, tx *sqlx.Tx, ttl time.Duration) (*Preview, error) {
	state, err := gatherPublishState(ctx, tx)
	if err != nil {
		return nil, err
	}
	gen, err := publishGeneration(ctx, tx)
	if err != nil {
		return nil, err
	}
	p := &Preview{Withheld: state.withheld, Generation: gen}
	var current *bundle.Bundle
	version := int64(1)
	if cur, err := latestBundle(ctx, tx); err == nil {
		p.Current, version = cur, cur.Version+1
		if current, err = cur.Bundle(); err != nil {
			return nil, err
		}
	} else if apperr.CodeOf(err) != apperr.NotFound {
		return nil, err
	}
	next, err := bundle.Build(bundle.BuildInput{Version: version, Now: db.Now(), TTL: ttl, Sources: state.sources, Tools: state.tools})
	if err != nil {
		return nil, fmt.Errorf("build next bundle: %w", err)
	}
	p.Next = next
	p.Changes = bundle.Diff(current, next)
	return p, nil
}

// publishAttempts bounds how often Publish builds outside the write lock
// when the state changed between building and storing; after that it
// builds under the lock (publishLocked), which always succeeds, so N
// concurrent publishers all publish instead of starving each other.
const publishAttempts = 3

// errStateChanged aborts a publish whose state changed after it was built.
var errStateChanged = errors.New("publishable state changed while publishing")

// Publish signs the exposed, approved state as the next version and audits
// "bundle.publish". It returns the stored record.
//
// The bundle is built and signed from a read snapshot, outside the write
// transaction (building a thousand-tool bundle takes long enough to stall
// every other writer); the write transaction only checks that the publish
// generation is still the one the bundle was built from, then inserts. Any
// change in between (an edit, an approval, another publish taking the
// version number) moves the generation, and the build starts again.
func (db *DB) Publish(ctx context.Context, req PublishRequest) (*BundleRecord, error) {
	return db.publishWith(ctx, req, db.preview)
}

// publishWith signs and stores what build builds, optimistically first
// (see Publish).
func (db *DB) publishWith(ctx context.Context, req PublishRequest, build buildFunc) (*BundleRecord, error) {
	for attempt := 1; ; attempt++ {
		rec, err := db.publishOnce(ctx, req, build)
		if !errors.Is(err, errStateChanged) {
			if err == nil {
				db.bundlesChanged()
			}
			return rec, err
		}
		if attempt == publishAttempts {
			rec, err := db.publishLocked(ctx, req, build)
			if err == nil {
				db.bundlesChanged()
			}
			return rec, err
		}
	}
}

// publishLocked builds, signs and stores under the write lock: nothing can
// change between building and storing. Publish falls back to it after
// losing the optimistic race publishAttempts times.
func (db *DB) publishLocked(ctx context.Context, req PublishRequest, build buildFunc) (*BundleRecord, error) {
	var rec *BundleRecord
	err := db.inTx(ctx, "publish", func(tx *sqlx.Tx) error {
		p, err := build(ctx, tx, req.TTL)
		if err != nil {
			return err
		}
		if rec, err = signRecord(req, p); err != nil {
			return err
		}
		return db.storePublished(ctx, tx, req, p, rec)
	})
	return rec, err
}

// storePublished inserts the signed bundle built from p and audits it, as
// "bundle.rollback" when p republishes an older version.
func (db *DB) storePublished(ctx context.Context, tx *sqlx.Tx, req PublishRequest, p *Preview, rec *BundleRecord) error {
	if err := insertBundle(ctx, tx, rec); err != nil {
		return err
	}
	if err := db.notifyChange(ctx, tx, changeBundle); err != nil {
		return err
	}
	if err := insertWithheld(ctx, tx, rec); err != nil {
		return err
	}
	if err := insertDowngrade(ctx, tx, rec); err != nil {
		return err
	}
	after := map[string]any{"version": rec.Version, "tool_count": rec.ToolCount, "note": rec.Note,
		"key_id": rec.KeyID, "etag": rec.ETag, "changes": p.Changes, "withheld": p.Withheld}
	if d := rec.Downgrade; d != nil {
		after["v1_form"] = map[string]any{"etag": d.ETag, "tool_count": d.ToolCount, "withheld": d.Withheld}
	}
	action := "bundle.publish"
	if p.RollbackOf != 0 {
		action, after["rollback_of"] = "bundle.rollback", p.RollbackOf
	}
	return db.appendAudit(ctx, tx, audit.Entry{Actor: req.Actor, Action: action,
		Subject: subjectBundle(rec.Version), Before: currentVersionJSON(p.Current), After: auditJSON(after)})
}

func (db *DB) publishOnce(ctx context.Context, req PublishRequest, build buildFunc) (*BundleRecord, error) {
	var p *Preview
	err := db.readTx(ctx, "publish: build", func(tx *sqlx.Tx) error {
		var err error
		p, err = build(ctx, tx, req.TTL)
		return err
	})
	if err != nil {
		return nil, err
	}
	rec, err := signRecord(req, p)
	if err != nil {
		return nil, err
	}
	if db.afterPublishBuild != nil {
		db.afterPublishBuild()
	}
	err = db.inTx(ctx, "publish", func(tx *sqlx.Tx) error {
		gen, err := publishGeneration(ctx, tx)
		if err != nil {
			return err
		}
		if gen != p.Generation {
			return errStateChanged
		}
		return db.storePublished(ctx, tx, req, p, rec)
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// signRecord signs the bundle p built with the request's key into the
// record to insert.
func signRecord(req PublishRequest, p *Preview) (*BundleRecord, error) {
	b := p.Next
	if len(req.Key.Private) == 0 {
		return nil, apperr.Conflictf("There is no signing key: start the console once with `toolgate serve` to create one.")
	}
	if len(req.Note) > 500 {
		return nil, apperr.Invalidf("Keep the note under 500 characters.")
	}
	signed, err := bundle.Sign(b, req.Key)
	if err != nil {
		return nil, err
	}
	payload, err := bundle.Canonical(b)
	if err != nil {
		return nil, err
	}
	downgrade, err := signDowngrade(b, req.Key)
	if err != nil {
		return nil, err
	}
	return &BundleRecord{Version: b.Version, Payload: payload, Signed: string(signed), ETag: BundleETag(signed),
		KeyID: req.Key.KeyID, ToolCount: len(b.Tools), IssuedAt: b.IssuedAt, ExpiresAt: b.ExpiresAt,
		PublishedBy: req.Actor, Note: strings.TrimSpace(req.Note), RollbackOf: p.RollbackOf, Withheld: p.Withheld,
		Downgrade: downgrade}, nil
}

func subjectBundle(v int64) string { return fmt.Sprintf("bundle:%d", v) }

func currentVersionJSON(cur *BundleRecord) string {
	if cur == nil {
		return ""
	}
	return auditJSON(map[string]any{"version": cur.Version, "etag": cur.ETag})
}

// sourcesWithoutOrigin names, sorted, the sources of the given tools whose
// origin is still unknown: a runtime could not know where to send calls.
func sourcesWithoutOrigin(tools []bundle.ToolInput, sources []bundle.Source) []string {
	origin := map[string]string{}
	for _, s := range sources {
		origin[s.Name] = s.Origin
	}
	seen := map[string]bool{}
	var out []string
	for _, t := range tools {
		if origin[t.Source] == "" && !seen[t.Source] {
			seen[t.Source] = true
			out = append(out, t.Source)
		}
	}
	sort.Strings(out)
	return out
}
