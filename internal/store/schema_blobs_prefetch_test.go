package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/openapi"
)

// distinctBodyDoc has n POST operations, each with a large request body of
// its own, so each is stored apart as a different schema blob.
func distinctBodyDoc(t *testing.T, n int) *openapi.Document {
	t.Helper()
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://api.example.com'}]\npaths:\n")
	for i := range n {
		fmt.Fprintf(&b, "  /orders%d:\n    post:\n      operationId: order%d\n      requestBody:\n        content:\n          application/json:\n"+
			"            schema:\n              type: object\n              properties:\n", i, i)
		for f := range 30 {
			fmt.Fprintf(&b, "                op%d_field%d: {type: string, description: 'a field with a description long enough'}\n", i, f)
		}
		b.WriteString("      responses: {'200': {description: ok}}\n")
	}
	doc, err := openapi.LoadBytes("api.yaml", []byte(b.String()), openapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestBlobPrefetchReadsEverySchemaAtOnce checks that prefetch loads every
// schema the operations refer to (the publish and re-import paths then
// expand them without a query each) and that expanding from it gives what
// reading schema by schema gives.
func TestBlobPrefetchReadsEverySchemaAtOnce(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	mustImport(t, db, "orders", distinctBodyDoc(t, 12))
	var blobs int
	if err := db.db.Get(&blobs, `SELECT COUNT(*) FROM schema_blobs`); err != nil || blobs != 12 {
		t.Fatalf("%d schema blobs (%v), want one per operation", blobs, err)
	}
	err := db.readTx(ctx, "test", func(tx *sqlx.Tx) error {
		var ops []string
		if err := tx.Select(&ops, `SELECT operation_json FROM tools ORDER BY id`); err != nil {
			return err
		}
		pre := newBlobReader(tx)
		if err := pre.prefetch(ctx, ops); err != nil {
			return err
		}
		if len(pre.cache) != blobs {
			t.Errorf("prefetch read %d schemas, want %d", len(pre.cache), blobs)
		}
		for _, op := range ops {
			got, err := pre.unpack(ctx, op)
			if err != nil {
				return err
			}
			want, err := newBlobReader(tx).unpack(ctx, op)
			if err != nil {
				return err
			}
			if got != want || strings.Contains(got, blobPrefix) {
				t.Errorf("prefetched expansion differs from the one read schema by schema")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
