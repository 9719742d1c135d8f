//go:build !runtimeonly

package cli

import (
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/sso"
)

// singleSignOn builds the OIDC relying party from cfg (nil when single
// sign-on is off). It reads the client secret from its file here, so the
// secret is never a flag, an environment value or a log line. cfg must
// have its BaseURL (the callback defaults to BASE_URL/login/oidc/callback).
func singleSignOn(cfg config.Config) (*sso.Client, error) {
	o := cfg.OIDC
	if !o.Enabled() {
		return nil, nil
	}
	secret, err := o.ClientSecret()
	if err != nil {
		return nil, err
	}
	redirect := o.RedirectURL
	if redirect == "" {
		redirect = cfg.BaseURL + "/login/oidc/callback"
	}
	return sso.New(sso.Settings{Name: o.Name, Issuer: o.Issuer, ClientID: o.ClientID, ClientSecret: secret,
		RedirectURL: redirect, Scopes: o.Scopes, RequireVerifiedEmail: o.RequireVerified,
		Roles: sso.RoleMapping{Claim: o.GroupsClaim, Admin: o.AdminGroups, Approver: o.ApproverGroups, Viewer: o.ViewerGroups}})
}
