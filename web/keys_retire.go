package web

import (
	"slices"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
)

// retireKey checks and retires kid: it must exist, not be active, not be
// retired already, and not sign the current bundle (cur, nil before the
// first publish; read by the caller before the audit transaction starts,
// which holds the database's write lock).
func retireKey(p *publishing, db *store.DB, cur *store.BundleRecord, kid string) (string, any, any, error) {
	active, keys, err := p.keys.List()
	if err != nil {
		return "", nil, nil, err
	}
	i := slices.IndexFunc(keys, func(k bundle.KeyInfo) bool { return k.KeyID == kid })
	switch {
	case i < 0:
		return "", nil, nil, apperr.NotFoundf("There is no signing key %q.", kid)
	case kid == active:
		return "", nil, nil, apperr.Conflictf("The active key cannot be retired: rotate first.")
	case keys[i].RetiredAt != nil:
		return "", nil, nil, apperr.Conflictf("The key %s is retired already.", kid)
	}
	if cur != nil && cur.KeyID == kid {
		return "", nil, nil, apperr.Conflictf("The current bundle v%d is signed with %s: publish with the new key first, then retire it.", cur.Version, kid)
	}
	if err := p.keys.Retire(kid, db.Now()); err != nil {
		return "", nil, nil, err
	}
	return kid, map[string]bool{"published": true}, map[string]bool{"published": false}, nil
}
