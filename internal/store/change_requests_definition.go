package store

import (
	"context"
	"errors"
	"net/http"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// ErrExecutorRefuses marks a change refused because the runtime's executor
// would refuse the tool it produces (R13): the message carries the
// executor's own reason.
var ErrExecutorRefuses = errors.New("the executor would refuse the tool")

// requestState is the class and policy a change request leaves the tool
// with once it applies.
func requestState(cur *PolicyRecord, kind ChangeKind, p policy.Policy, class risk.Class) (risk.Class, policy.Policy) {
	if kind == KindLowerRisk {
		return class, cur.Policy
	}
	return cur.Class, p
}

// requestDefinition runs the executor's compile step on the tool as the
// request would publish it, refusing the request with the executor's
// reason, and returns the definition digest the request pins (R13).
func requestDefinition(ctx context.Context, tx *sqlx.Tx, cur *PolicyRecord, n NewChangeRequest) (string, error) {
	def, err := loadDefinition(ctx, tx, cur.ToolID)
	if err != nil {
		return "", err
	}
	class, p := requestState(cur, n.Kind, n.Policy, n.NewClass)
	if n.Kind != KindLowerRisk {
		if err := def.refusal(class, p); err != nil {
			return "", errors.Join(apperr.Invalidf("Runtimes would refuse this tool with this change, so it cannot be requested: %s.%s "+
				"Nothing was requested.", err.Error(), def.keyHint(p)), ErrExecutorRefuses)
		}
	}
	bt, err := def.published(class, p)
	if err != nil {
		return "", err
	}
	return bt.Digest, nil
}

// definitionStaleness says why an approval of cr would not approve what
// agents would get, or "": the tool's definition digest under the
// request's "after" is no longer the one the request pinned (a re-import
// changed what agents read since), or the executor would now refuse it.
func definitionStaleness(ctx context.Context, tx *sqlx.Tx, cr *ChangeRequest, cur *PolicyRecord) (string, error) {
	def, err := loadDefinition(ctx, tx, cr.ToolID)
	if err != nil {
		return "", err
	}
	class, p := cur.Class, cur.Policy
	if cr.Kind == KindLowerRisk {
		if _, class, err = cr.Classes(); err != nil {
			return "", err
		}
	} else if _, p, err = cr.Policies(); err != nil {
		return "", err
	}
	bt, err := def.published(class, p)
	if err != nil {
		return "", err
	}
	if cr.DefinitionDigest != "" && bt.Digest != cr.DefinitionDigest {
		return "The tool's definition (what agents read or send) changed after the request was made, " +
			"so the approver would not be approving what agents would get.", nil
	}
	if cr.Kind != KindLowerRisk {
		if err := def.refusal(class, p); err != nil {
			return "Runtimes would refuse the tool with this change: " + err.Error() + ".", nil
		}
	}
	return "", nil
}

// publishable refuses a policy edit that exposes a tool the runtime's
// executor would refuse (a GET tool given an idempotency key whose header
// the operation declares itself, say), with the executor's reason.
func publishable(ctx context.Context, tx *sqlx.Tx, cur *PolicyRecord, p policy.Policy) error {
	why, err := exposureRefusal(ctx, tx, cur, p)
	if err != nil || why == "" {
		return err
	}
	return errors.Join(apperr.Invalidf("Runtimes would refuse this tool with this policy: %s. Nothing was saved.", why),
		ErrExecutorRefuses)
}

// exposureRefusal is the executor's reason to refuse the tool exposed
// with policy p, or "" (also when p does not expose it).
func exposureRefusal(ctx context.Context, tx *sqlx.Tx, cur *PolicyRecord, p policy.Policy) (string, error) {
	if !p.Exposed {
		return "", nil
	}
	def, err := loadDefinition(ctx, tx, cur.ToolID)
	if err != nil {
		return "", err
	}
	if err := def.refusal(cur.Class, p); err != nil {
		return err.Error(), nil
	}
	return "", nil
}

// keyHint explains the commonest refusal in words: the operation declares
// the idempotency key's header as a parameter of its own, so the agent and
// the executor would both set it.
func (d *toolDefinition) keyHint(p policy.Policy) string {
	k := p.IdempotencyKey
	if k == nil {
		return ""
	}
	for _, prm := range d.op.Parameters {
		if prm.In == "header" && http.CanonicalHeaderKey(prm.Name) == http.CanonicalHeaderKey(k.Header) {
			return " The operation declares " + prm.Name + " as a parameter the agent fills in; choose another header for the key, or assert idempotency instead."
		}
	}
	return ""
}
