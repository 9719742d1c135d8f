package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/callrecord"
)

// callRequestRow is a call_requests row as stored.
type callRequestRow struct {
	ID               string         `db:"id"`
	Tool             string         `db:"tool"`
	DefinitionDigest string         `db:"definition_digest"`
	ArgumentsDigest  string         `db:"arguments_digest"`
	Arguments        string         `db:"arguments"`
	Mode             string         `db:"mode"`
	Reason           string         `db:"reason"`
	RiskClass        string         `db:"risk_class"`
	Kind             string         `db:"principal_kind"`
	Subject          string         `db:"principal_subject"`
	Client           string         `db:"principal_client"`
	Groups           string         `db:"principal_groups"`
	BundleVersion    int64          `db:"bundle_version"`
	TokenID          int64          `db:"token_id"`
	Instance         string         `db:"instance"`
	State            string         `db:"state"`
	CreatedAt        string         `db:"created_at"`
	ExpiresAt        string         `db:"expires_at"`
	DecidedAt        sql.NullString `db:"decided_at"`
	DecidedBy        string         `db:"decided_by"`
	Comment          string         `db:"comment"`
	GrantNonce       sql.NullString `db:"grant_nonce"`
	GrantNotAfter    sql.NullString `db:"grant_not_after"`
	Grant            string         `db:"grant_jws"`
	ConsumedAt       sql.NullString `db:"consumed_at"`
	ConsumedBy       string         `db:"consumed_by"`
}

func (r callRequestRow) request() (*CallRequest, error) {
	cr := &CallRequest{ID: r.ID, Tool: r.Tool, DefinitionDigest: r.DefinitionDigest, ArgumentsDigest: r.ArgumentsDigest,
		Arguments: json.RawMessage(r.Arguments), Mode: r.Mode, Reason: r.Reason, RiskClass: r.RiskClass,
		Principal:     callgate.Principal{Principal: callrecord.Principal{Kind: r.Kind, Subject: r.Subject, ClientID: r.Client}},
		BundleVersion: r.BundleVersion, TokenID: r.TokenID, Instance: r.Instance, State: r.State,
		DecidedBy: r.DecidedBy, Comment: r.Comment, GrantNonce: r.GrantNonce.String, Grant: r.Grant, ConsumedBy: r.ConsumedBy}
	if err := json.Unmarshal([]byte(r.Groups), &cr.Principal.Groups); err != nil {
		return nil, fmt.Errorf("call request %s: groups: %w", r.ID, err)
	}
	var err error
	for _, t := range []struct {
		s    string
		into *time.Time
	}{{r.CreatedAt, &cr.CreatedAt}, {r.ExpiresAt, &cr.ExpiresAt}, {r.DecidedAt.String, &cr.DecidedAt},
		{r.GrantNotAfter.String, &cr.GrantNotAfter}, {r.ConsumedAt.String, &cr.ConsumedAt}} {
		if t.s == "" {
			continue
		}
		if *t.into, err = parseTime(t.s); err != nil {
			return nil, err
		}
	}
	return cr, nil
}
