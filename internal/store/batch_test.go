package store

import (
	"slices"
	"strings"
	"testing"
)

func TestChunksStayWithinTheLimits(t *testing.T) {
	rows := func(n, width, bytes int) [][]any {
		out := make([][]any, n)
		for i := range out {
			out[i] = make([]any, width)
			for j := range out[i] {
				out[i][j] = int64(j)
			}
			out[i][0] = strings.Repeat("x", bytes)
		}
		return out
	}
	tests := []struct {
		name   string
		params int // DB.batchParams; 0 for the real limit
		b      batchSQL
		rows   [][]any
		want   []int // rows per statement
	}{
		{"no rows, no statement", 0, batchSQL{row: "(?, ?)"}, nil, nil},
		{"one row a statement", 1, batchSQL{row: "(?, ?)"}, rows(3, 2, 1), []int{1, 1, 1}},
		{"fixed arguments leave at least one row", 1, batchSQL{head: "UPDATE t SET a = ?, b = ? WHERE c IN (", row: "?", tail: ")", fixed: []any{1, 2}}, rows(2, 1, 1), []int{1, 1}},
		{"a few rows a statement", 5, batchSQL{row: "(?, ?)"}, rows(5, 2, 1), []int{2, 2, 1}},
		{"fixed arguments count", 7, batchSQL{head: "UPDATE t SET a = ? WHERE (b, c) IN (VALUES ", row: "(?, ?)", tail: ")", fixed: []any{1}}, rows(7, 2, 1), []int{3, 3, 1}},
		{"SQLite's limit, below PostgreSQL's", 0, batchSQL{row: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
			rows(5000, 16, 1), []int{2047, 2047, 906}},
		{"bytes bound a statement", 0, batchSQL{row: "(?, ?)"}, rows(5, 2, maxBatchBytes/2), []int{2, 2, 1}},
		{"a row larger than the bytes bound goes alone", 0, batchSQL{row: "(?, ?)"}, rows(2, 2, maxBatchBytes+1), []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := &DB{batchParams: tt.params}
			var got []int
			total := 0
			for _, c := range db.chunks(tt.b, tt.rows) {
				got = append(got, len(c))
				q, args := tt.b.statement(c)
				if strings.Count(q, "?") != len(args) || len(args) > maxBindParams {
					t.Errorf("statement of %d rows has %d placeholders for %d arguments", len(c), strings.Count(q, "?"), len(args))
				}
				total += len(c)
			}
			if total != len(tt.rows) || !slices.Equal(got, tt.want) {
				t.Errorf("rows per statement %v, want %v", got, tt.want)
			}
		})
	}
}
