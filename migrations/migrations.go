// Package migrations holds toolgate's numbered SQL migrations (NNNN_name.sql,
// goose format) embedded into the binary. Add a schema change as the next
// number; never edit a migration that has been committed.
package migrations

import "embed"

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS
