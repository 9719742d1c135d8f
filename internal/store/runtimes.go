package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
)

// RuntimeFetch is one bundle fetch as a runtime described itself.
type RuntimeFetch struct {
	TokenID    int64
	InstanceID string // "" when the runtime sent none: only the token is touched
	Name       string
	Version    int64 // the bundle version it says it runs (0: none yet)
	RemoteAddr string
	// Refused is the runtime's last refusal reason (X-Toolgate-Refused), ""
	// when it has none.
	Refused string
	// Schemas are the bundle schemas it said it reads
	// (X-Toolgate-Bundle-Schemas, as sent), "" when it sent none.
	Schemas string
	// At is when the fetch happened; zero means the store's clock.
	At time.Time
}

// DefaultInstancesPerToken bounds the instance rows one runtime token can
// own: a token holder inventing instance ids evicts its own oldest rows,
// not the page's memory or anyone else's.
const DefaultInstancesPerToken = 200

// RecordRuntimeFetch records one fetch (RecordRuntimeFetches with the
// default bound).
func (db *DB) RecordRuntimeFetch(ctx context.Context, f RuntimeFetch) error {
	_, err := db.RecordRuntimeFetches(ctx, []RuntimeFetch{f}, DefaultInstancesPerToken)
	return err
}

// RecordRuntimeFetches writes a batch of fetches in one transaction: each
// token's last use and each instance's row, created on first sight. A row
// is keyed by (token, instance id), so a token can only ever update rows it
// created. After the batch, each token touched keeps at most perToken rows:
// the least recently seen are deleted and counted on the token (shown on
// the Runtimes page). It returns how many rows were evicted.
//
// Not audited: it is runtimes reporting in, not a change anyone made, and a
// fleet polling every few seconds would bury the audit log. The caller
// batches and rate-limits these writes.
func (db *DB) RecordRuntimeFetches(ctx context.Context, fetches []RuntimeFetch, perToken int) (int64, error) {
	if perToken <= 0 {
		return 0, apperr.Invalidf("The bound on instances per token must be positive.")
	}
	rows, tokens := db.fetchRows(fetches)
	var evicted int64
	err := db.inTx(ctx, "record runtime fetches", func(tx *sqlx.Tx) error {
		if err := db.execBatches(ctx, tx, upsertInstancesSQL, rows); err != nil {
			return err
		}
		for id, at := range tokens {
			if _, err := tx.ExecContext(ctx, `UPDATE runtime_tokens SET last_used_at = ?
				WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`, at, id, at); err != nil {
				return err
			}
			n, err := evictInstances(ctx, tx, id, perToken, at)
			if err != nil {
				return err
			}
			evicted += n
		}
		return nil
	})
	return evicted, err
}

// upsertInstancesSQL writes instance rows in multi-row statements (a flush
// of a large fleet is one or a few round trips, not one per instance,
// under the write lock): a new instance is inserted, a known one gets the
// report and a later last_seen.
var upsertInstancesSQL = batchSQL{head: `INSERT INTO runtime_instances
		(token_id, instance_id, name, version, remote_addr, refused, bundle_schemas, first_seen, last_seen) VALUES `,
	row: `(?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	tail: ` ON CONFLICT (token_id, instance_id) DO UPDATE SET name = excluded.name, version = excluded.version,
		remote_addr = excluded.remote_addr, refused = excluded.refused, bundle_schemas = excluded.bundle_schemas,
		last_seen = CASE WHEN excluded.last_seen > runtime_instances.last_seen
			THEN excluded.last_seen ELSE runtime_instances.last_seen END`}

// fetchRows turns fetches into upsertInstancesSQL rows, one per (token,
// instance) — the last fetch of each, by time, as one statement may not
// update a row twice on PostgreSQL — and each token's latest fetch time.
func (db *DB) fetchRows(fetches []RuntimeFetch) ([][]any, map[int64]string) {
	type key struct {
		token    int64
		instance string
	}
	tokens := map[int64]string{}
	latest := map[key]int{}
	var order []key
	times := make([]string, len(fetches))
	for i, f := range fetches {
		at := f.At
		if at.IsZero() {
			at = db.Now()
		}
		times[i] = formatTime(at)
		if times[i] > tokens[f.TokenID] {
			tokens[f.TokenID] = times[i]
		}
		if f.InstanceID == "" {
			continue
		}
		k := key{f.TokenID, f.InstanceID}
		if j, seen := latest[k]; !seen {
			order = append(order, k)
			latest[k] = i
		} else if times[i] >= times[j] {
			latest[k] = i
		}
	}
	rows := make([][]any, 0, len(order))
	for _, k := range order {
		i := latest[k]
		f := fetches[i]
		rows = append(rows, []any{f.TokenID, f.InstanceID, f.Name, f.Version, f.RemoteAddr, f.Refused, f.Schemas, times[i], times[i]})
	}
	return rows, tokens
}

// evictInstances deletes token id's least recently seen rows beyond keep
// and counts them on the token.
func evictInstances(ctx context.Context, tx *sqlx.Tx, id int64, keep int, at string) (int64, error) {
	// Ties on last_seen keep the instance seen first most recently, then the
	// greater id: an order both engines give the same way (no rowid).
	res, err := tx.ExecContext(ctx, `DELETE FROM runtime_instances WHERE token_id = ? AND instance_id NOT IN (
			SELECT instance_id FROM runtime_instances WHERE token_id = ?
			ORDER BY last_seen DESC, first_seen DESC, instance_id DESC LIMIT ?)`,
		id, id, keep)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE runtime_tokens SET instances_evicted = instances_evicted + ?, last_evicted_at = ? WHERE id = ?`, n, at, id)
	return n, err
}

// RuntimeInstance is one runtime process seen fetching bundles.
type RuntimeInstance struct {
	InstanceID string
	Name       string
	TokenName  string
	Version    int64
	RemoteAddr string
	Refused    string // last refusal reason it reported; "" when none
	// Schemas are the bundle schemas it said it reads, "" when it sent
	// none (a runtime from before toolgate.bundle/v2: it reads v1).
	Schemas   string
	FirstSeen time.Time
	LastSeen  time.Time
}

// ListRuntimeInstances returns every instance, most recently seen first.
func (db *DB) ListRuntimeInstances(ctx context.Context) ([]*RuntimeInstance, error) {
	out, _, err := db.RuntimeInstancesPage(ctx, -1, 0)
	return out, err
}

// RuntimeInstancesPage returns limit instances (all when limit < 0) from
// offset, most recently seen first, and how many there are in total.
func (db *DB) RuntimeInstancesPage(ctx context.Context, limit, offset int) ([]*RuntimeInstance, int, error) {
	var out []*RuntimeInstance
	var total int
	err := db.readTx(ctx, "list runtime instances", func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &total, `SELECT count(*) FROM runtime_instances`); err != nil {
			return err
		}
		var rows []struct {
			InstanceID string `db:"instance_id"`
			Name       string `db:"name"`
			TokenName  string `db:"token_name"`
			Version    int64  `db:"version"`
			RemoteAddr string `db:"remote_addr"`
			Refused    string `db:"refused"`
			Schemas    string `db:"bundle_schemas"`
			FirstSeen  string `db:"first_seen"`
			LastSeen   string `db:"last_seen"`
		}
		if err := tx.SelectContext(ctx, &rows, `SELECT i.instance_id, i.name, t.name AS token_name, i.version,
				i.remote_addr, i.refused, i.bundle_schemas, i.first_seen, i.last_seen
			FROM runtime_instances i JOIN runtime_tokens t ON t.id = i.token_id
			ORDER BY i.last_seen DESC, i.name, i.instance_id, t.name
			LIMIT ? OFFSET ?`, sqlLimit(limit), max(offset, 0)); err != nil {
			return err
		}
		for _, r := range rows {
			first, err := parseTime(r.FirstSeen)
			if err != nil {
				return err
			}
			last, err := parseTime(r.LastSeen)
			if err != nil {
				return err
			}
			out = append(out, &RuntimeInstance{InstanceID: r.InstanceID, Name: r.Name, TokenName: r.TokenName,
				Version: r.Version, RemoteAddr: r.RemoteAddr, Refused: r.Refused, Schemas: r.Schemas, FirstSeen: first, LastSeen: last})
		}
		return nil
	})
	return out, total, err
}
