package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/callrecord"
)

// CallRecord is one stored call record (callrecord.Record as the console
// keeps it) with the name of the token that reported it.
type CallRecord struct {
	callrecord.Record
	TokenName  string
	ReceivedAt time.Time
}

// insertCallRecordsSQL writes call records in multi-row statements; a
// record already stored (a batch sent again) is skipped.
var insertCallRecordsSQL = batchSQL{head: `INSERT INTO call_records (id, token_id, tool, definition_digest, arguments_digest,
		principal_kind, principal_subject, principal_client, decision, class, status, attempts, called_at, duration_ms, received_at) VALUES `,
	row:  `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	tail: ` ON CONFLICT (id) DO NOTHING`}

// RecordCalls stores records (checked by callrecord.ParseBatch) reported
// by token tokenID. Every record must name a tool of the project: a batch
// naming another is refused whole (apperr.Invalid), nothing stored.
func (db *DB) RecordCalls(ctx context.Context, tokenID int64, recs []callrecord.Record) error {
	if len(recs) == 0 {
		return nil
	}
	names := make([]string, 0, len(recs))
	for _, r := range recs {
		names = append(names, r.Tool)
	}
	now := formatTime(db.Now())
	rows := make([][]any, 0, len(recs))
	for _, r := range recs {
		rows = append(rows, []any{r.ID, tokenID, r.Tool, r.DefinitionDigest, r.ArgumentsDigest, r.Principal.Kind,
			r.Principal.Subject, r.Principal.ClientID, r.Decision, r.Class, r.Status, r.Attempts, formatTime(r.At), r.DurationMS, now})
	}
	return db.inTx(ctx, "record calls", func(tx *sqlx.Tx) error {
		known, names, err := knownTools(ctx, tx, names)
		if err != nil {
			return err
		}
		for _, n := range names {
			if !slices.Contains(known, n) {
				return apperr.Invalidf("Call records name tool %q, which this console does not have.", n)
			}
		}
		return db.execBatches(ctx, tx, insertCallRecordsSQL, rows)
	})
}

// CallRecordFilter selects call records: by tool, by principal (kind and
// subject), or all; newest first.
type CallRecordFilter struct {
	Tool                   string
	PrincipalKind, Subject string
	Limit, Offset          int
}

func (f CallRecordFilter) where() (string, []any) {
	var conds []string
	var args []any
	if f.Tool != "" {
		conds, args = append(conds, "c.tool = ?"), append(args, f.Tool)
	}
	if f.PrincipalKind != "" {
		conds = append(conds, "c.principal_kind = ? AND c.principal_subject = ?")
		args = append(args, f.PrincipalKind, f.Subject)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// callRecordRow is a call_records row joined with its token's name.
type callRecordRow struct {
	ID               string `db:"id"`
	TokenName        string `db:"token_name"`
	Tool             string `db:"tool"`
	DefinitionDigest string `db:"definition_digest"`
	ArgumentsDigest  string `db:"arguments_digest"`
	Kind             string `db:"principal_kind"`
	Subject          string `db:"principal_subject"`
	Client           string `db:"principal_client"`
	Decision         string `db:"decision"`
	Class            string `db:"class"`
	Status           int    `db:"status"`
	Attempts         int    `db:"attempts"`
	CalledAt         string `db:"called_at"`
	DurationMS       int64  `db:"duration_ms"`
	ReceivedAt       string `db:"received_at"`
}

// CallRecordsPage returns f.Limit records from f.Offset, newest first, and
// how many match in total.
func (db *DB) CallRecordsPage(ctx context.Context, f CallRecordFilter) ([]CallRecord, int, error) {
	var out []CallRecord
	var total int
	where, args := f.where()
	err := db.readTx(ctx, "list call records", func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &total, `SELECT count(*) FROM call_records c`+where, args...); err != nil {
			return err
		}
		var rows []callRecordRow
		if err := tx.SelectContext(ctx, &rows, `SELECT c.id, COALESCE(t.name, '') AS token_name, c.tool, c.definition_digest,
				c.arguments_digest, c.principal_kind, c.principal_subject, c.principal_client, c.decision, c.class,
				c.status, c.attempts, c.called_at, c.duration_ms, c.received_at
			FROM call_records c LEFT JOIN runtime_tokens t ON t.id = c.token_id`+where+`
			ORDER BY c.called_at DESC, c.id LIMIT ? OFFSET ?`, append(args, sqlLimit(f.Limit), max(f.Offset, 0))...); err != nil {
			return err
		}
		for _, r := range rows {
			rec, err := r.record()
			if err != nil {
				return err
			}
			out = append(out, rec)
		}
		return nil
	})
	return out, total, err
}

func (r callRecordRow) record() (CallRecord, error) {
	at, err := parseTime(r.CalledAt)
	if err != nil {
		return CallRecord{}, err
	}
	recv, err := parseTime(r.ReceivedAt)
	if err != nil {
		return CallRecord{}, err
	}
	return CallRecord{TokenName: r.TokenName, ReceivedAt: recv, Record: callrecord.Record{ID: r.ID, Tool: r.Tool,
		DefinitionDigest: r.DefinitionDigest, ArgumentsDigest: r.ArgumentsDigest,
		Principal: callrecord.Principal{Kind: r.Kind, Subject: r.Subject, ClientID: r.Client},
		Decision:  r.Decision, Class: r.Class, Status: r.Status, Attempts: r.Attempts, At: at, DurationMS: r.DurationMS}}, nil
}

// PruneCallRecords deletes the records of calls made before before and
// returns how many.
func (db *DB) PruneCallRecords(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := db.inTx(ctx, "prune call records", func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM call_records WHERE called_at < ?`, formatTime(before))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		if err != nil {
			return fmt.Errorf("rows affected: %w", err)
		}
		return nil
	})
	return n, err
}
