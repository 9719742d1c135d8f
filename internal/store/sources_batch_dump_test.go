package store

import (
	"fmt"
	"testing"
)

// importTables are the tables an import writes, each with a total order.
var importTables = map[string]string{
	"sources":         "id",
	"tools":           "id",
	"tool_policies":   "tool_id",
	"tool_tags":       "tool_id, tag",
	"schema_blobs":    "sha256",
	"change_requests": "id",
	"audit_log":       "id",
}

// dumpImportTables reads every row of importTables as text.
func dumpImportTables(t *testing.T, db *DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, order := range importTables {
		rows, err := db.db.Queryx(`SELECT * FROM ` + table + ` ORDER BY ` + order)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			row := map[string]any{}
			if err := rows.MapScan(row); err != nil {
				t.Fatal(err)
			}
			for k, v := range row {
				if b, ok := v.([]byte); ok {
					row[k] = string(b)
				}
			}
			out[table] = append(out[table], fmt.Sprint(row))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		_ = rows.Close()
	}
	return out
}

// firstDifference names the first row that differs between two dumps.
func firstDifference(want, got map[string][]string) string {
	for table, rows := range want {
		for i := range max(len(rows), len(got[table])) {
			var w, g string
			if i < len(rows) {
				w = rows[i]
			}
			if i < len(got[table]) {
				g = got[table][i]
			}
			if w != g {
				return fmt.Sprintf("%s row %d:\nwant %s\n got %s", table, i, w, g)
			}
		}
	}
	return "(no row differs)"
}
