package oidctest

import (
	"context"
	"crypto/subtle"
	"errors"
	"time"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// opStorage is the example module's in-memory storage (auth requests,
// codes, tokens, signing key) with the parts toolgate's tests need
// replaced: clients registered at run time, a groups claim, code expiry,
// and a forged audience on demand.
type opStorage struct {
	*storage.Storage
	p *Provider
}

// GetClientByClientID implements op.Storage over the registered clients.
func (s *opStorage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	c, ok := s.p.clients[id]
	if !ok {
		return nil, errors.New("client not found")
	}
	if s.p.forgedAudience != "" {
		return forgedClient{client: c, id: s.p.forgedAudience}, nil
	}
	return c, nil
}

// forgedClient is a client that the token endpoint takes for another one,
// so the tokens it gets name that other client (ForgeAudience).
type forgedClient struct {
	*client
	id string
}

func (f forgedClient) GetID() string { return f.id }

// AuthorizeClientIDSecret implements op.Storage: the token endpoint's
// client authentication.
func (s *opStorage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	c, ok := s.p.clients[id]
	if !ok || subtle.ConstantTimeCompare([]byte(c.secret), []byte(secret)) != 1 {
		return errors.New("invalid client")
	}
	return nil
}

// CreateAuthRequest records the PKCE method the relying party used, then
// stores the request as the example does.
func (s *opStorage) CreateAuthRequest(ctx context.Context, r *oidc.AuthRequest, userID string) (op.AuthRequest, error) {
	s.p.mu.Lock()
	s.p.lastChallengeMethod = string(r.CodeChallengeMethod)
	s.p.mu.Unlock()
	return s.Storage.CreateAuthRequest(ctx, r, userID)
}

// SaveAuthCode remembers when each code was issued, for expiry.
func (s *opStorage) SaveAuthCode(ctx context.Context, id, code string) error {
	s.p.mu.Lock()
	s.p.codeIssued[code] = time.Now()
	s.p.mu.Unlock()
	return s.Storage.SaveAuthCode(ctx, id, code)
}

// AuthRequestByCode refuses expired codes (the example storage keeps them
// until used) and, when ForgeAudience is set, hands the op a request whose
// audience is another client's.
func (s *opStorage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.p.mu.Lock()
	issued, known := s.p.codeIssued[code]
	lifetime, forged := s.p.codeLifetime, s.p.forgedAudience
	s.p.mu.Unlock()
	if !known || time.Since(issued) > lifetime {
		return nil, errors.New("code invalid or expired")
	}
	r, err := s.Storage.AuthRequestByCode(ctx, code)
	if err != nil || forged == "" {
		return r, err
	}
	return forgedRequest{AuthRequest: r, audience: forged}, nil
}

// forgedRequest is an auth request whose tokens name another client as
// audience and authorized party.
type forgedRequest struct {
	op.AuthRequest
	audience string
}

func (f forgedRequest) GetAudience() []string { return []string{f.audience} }
func (f forgedRequest) GetClientID() string   { return f.audience }

// SetUserinfoFromRequest fills the ID token's claims: the example's
// (email, email_verified, profile) plus groups.
func (s *opStorage) SetUserinfoFromRequest(ctx context.Context, ui *oidc.UserInfo, r op.IDTokenRequest, scopes []string) error {
	if err := s.Storage.SetUserinfoFromRequest(ctx, ui, r, scopes); err != nil {
		return err
	}
	s.addGroups(ui, r.GetSubject())
	return nil
}

// SetUserinfoFromToken fills the userinfo endpoint's answer, groups too.
func (s *opStorage) SetUserinfoFromToken(ctx context.Context, ui *oidc.UserInfo, tokenID, subject, origin string) error {
	if err := s.Storage.SetUserinfoFromToken(ctx, ui, tokenID, subject, origin); err != nil {
		return err
	}
	s.addGroups(ui, ui.Subject)
	return nil
}

func (s *opStorage) addGroups(ui *oidc.UserInfo, subject string) {
	if g := s.p.users.groups(subject); g != nil {
		ui.AppendClaims("groups", g)
	}
}
