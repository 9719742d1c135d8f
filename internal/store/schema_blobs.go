package store

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/openapi"
)

// blobMinBytes is the smallest schema worth storing apart: below it the
// reference costs about as much as the schema.
const blobMinBytes = 1024

// blobPrefix starts the stand-in for a stored schema inside operation_json.
const blobPrefix = `{"$toolgate_blob":"`

// packOperation encodes op for operation_json with every large schema it
// carries (request body, parameter schemas) stored once in schema_blobs and
// replaced, wherever its exact JSON occurs (in InputSchema too), by a
// stand-in naming its SHA-256. A document whose 300 operations share one
// 100 KB body stores it once, not 600 times. An operation whose JSON
// already contains the stand-in's key is stored as is.
//
// Packing is pure: the schemas to store are added to blobs (SHA-256 hex →
// JSON), which the write transaction stores with storeBlobs, so encoding a
// large import happens before the write lock is taken.
func packOperation(op *openapi.Operation, blobs map[string]string) (string, error) {
	raw, err := json.Marshal(op)
	if err != nil {
		return "", fmt.Errorf("encode operation: %w", err)
	}
	if bytes.Contains(raw, []byte(`"$toolgate_blob"`)) {
		return string(raw), nil
	}
	var schemas [][]byte
	if op.RequestBody != nil {
		schemas = append(schemas, op.RequestBody.Schema)
	}
	for _, p := range op.Parameters {
		schemas = append(schemas, p.Schema)
	}
	// Largest first: a parameter schema could occur inside the body.
	slices.SortFunc(schemas, func(a, b []byte) int { return cmp.Compare(len(b), len(a)) })
	for _, s := range schemas {
		if len(s) < blobMinBytes {
			continue
		}
		// The schema as it appears in operation_json: json.Marshal
		// compacts and escapes a RawMessage the same way everywhere.
		enc, err := json.Marshal(json.RawMessage(s))
		if err != nil || !bytes.Contains(raw, enc) {
			continue
		}
		sum := sha256.Sum256(enc)
		id := hex.EncodeToString(sum[:])
		blobs[id] = string(enc)
		raw = bytes.ReplaceAll(raw, enc, []byte(blobPrefix+id+`"}`))
	}
	return string(raw), nil
}

// storeBlobs stores the schemas packOperation set apart, in id order; a
// schema already stored (by an earlier import or another source) is kept
// as it is.
func (db *DB) storeBlobs(ctx context.Context, tx *sqlx.Tx, blobs map[string]string) error {
	rows := make([][]any, 0, len(blobs))
	for _, id := range slices.Sorted(maps.Keys(blobs)) {
		rows = append(rows, []any{id, blobs[id]})
	}
	if err := db.execBatches(ctx, tx, batchSQL{head: `INSERT INTO schema_blobs (sha256, body) VALUES `, row: `(?, ?)`,
		tail: ` ON CONFLICT (sha256) DO NOTHING`}, rows); err != nil {
		return fmt.Errorf("store schema: %w", err)
	}
	return nil
}

// blobReader expands stand-ins back into schemas, caching each blob for
// the reads of one transaction.
type blobReader struct {
	tx    *sqlx.Tx
	cache map[string]string
}

func newBlobReader(tx *sqlx.Tx) *blobReader { return &blobReader{tx: tx, cache: map[string]string{}} }

// unpack returns operation_json with its stand-ins replaced by the stored
// schemas; JSON without stand-ins is returned as is.
func (r *blobReader) unpack(ctx context.Context, raw string) (string, error) {
	if !strings.Contains(raw, blobPrefix) {
		return raw, nil
	}
	var b strings.Builder
	rest := raw
	for {
		i := strings.Index(rest, blobPrefix)
		if i < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		b.WriteString(rest[:i])
		rest = rest[i+len(blobPrefix):]
		end := strings.Index(rest, `"}`)
		if end < 0 {
			return "", fmt.Errorf("operation_json: unterminated schema reference")
		}
		body, err := r.blob(ctx, rest[:end])
		if err != nil {
			return "", err
		}
		b.WriteString(body)
		rest = rest[end+2:]
	}
}

// blobsPerQuery bounds the ids of one prefetch query.
const blobsPerQuery = 500

// prefetch reads, in a few queries rather than one per schema, every
// stored schema the stand-ins of raws name that is not cached yet: a
// publish or a re-import plan expands the operations of a whole source,
// and a document may carry hundreds of distinct large bodies.
func (r *blobReader) prefetch(ctx context.Context, raws []string) error {
	var ids []string
	seen := map[string]bool{}
	for _, raw := range raws {
		for rest := raw; ; {
			i := strings.Index(rest, blobPrefix)
			if i < 0 {
				break
			}
			rest = rest[i+len(blobPrefix):]
			end := strings.Index(rest, `"}`)
			if end < 0 {
				break // unpack reports it
			}
			if id := rest[:end]; !seen[id] && !r.cached(id) {
				seen[id] = true
				ids = append(ids, id)
			}
			rest = rest[end:]
		}
	}
	for chunk := range slices.Chunk(ids, blobsPerQuery) {
		q := `SELECT sha256, body FROM schema_blobs WHERE sha256 IN (?` + strings.Repeat(", ?", len(chunk)-1) + `)`
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		err := queryEach(ctx, r.tx, q, args, func(rows *sqlx.Rows) error {
			var id, body string
			if err := rows.Scan(&id, &body); err != nil {
				return err
			}
			r.cache[id] = body
			return nil
		})
		if err != nil {
			return fmt.Errorf("stored schemas: %w", err)
		}
	}
	return nil
}

func (r *blobReader) blob(ctx context.Context, id string) (string, error) {
	if body, ok := r.cache[id]; ok {
		return body, nil
	}
	var body string
	if err := r.tx.GetContext(ctx, &body, `SELECT body FROM schema_blobs WHERE sha256 = ?`, id); err != nil {
		return "", fmt.Errorf("schema %s: %w", id, err)
	}
	r.cache[id] = body
	return body, nil
}

func (r *blobReader) cached(id string) bool {
	_, ok := r.cache[id]
	return ok
}
