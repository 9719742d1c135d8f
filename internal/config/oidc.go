package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
)

// OIDC configures sign-in through the organisation's OpenID Connect
// provider (README "Single sign-on (OpenID Connect)"). Off while Issuer is empty.
type OIDC struct {
	Issuer           string   `name:"oidc-issuer" env:"TOOLGATE_OIDC_ISSUER" placeholder:"URL" help:"Issuer URL of the OpenID Connect provider; turns single sign-on on (see README, Single sign-on)."`
	ClientID         string   `name:"oidc-client-id" env:"TOOLGATE_OIDC_CLIENT_ID" help:"Client id of the console at the provider."`
	ClientSecretFile string   `name:"oidc-client-secret-file" env:"TOOLGATE_OIDC_CLIENT_SECRET_FILE" placeholder:"FILE" help:"File holding the client secret (first line); never the secret itself on the command line."`
	RedirectURL      string   `name:"oidc-redirect-url" env:"TOOLGATE_OIDC_REDIRECT_URL" placeholder:"URL" help:"Callback URL registered at the provider (default BASE_URL/login/oidc/callback)."`
	Scopes           []string `name:"oidc-scopes" env:"TOOLGATE_OIDC_SCOPES" default:"openid,email,profile" help:"Scopes to request, comma-separated (add groups for Okta)."`
	Name             string   `name:"oidc-name" env:"TOOLGATE_OIDC_NAME" help:"Provider name on the sign-in button (default the issuer's host)."`
	GroupsClaim      string   `name:"oidc-groups-claim" env:"TOOLGATE_OIDC_GROUPS_CLAIM" default:"groups" help:"Claim holding the user's groups."`
	AdminGroups      []string `name:"oidc-admin-groups" env:"TOOLGATE_OIDC_ADMIN_GROUPS" placeholder:"GROUP,…" help:"Groups whose members are admins."`
	ApproverGroups   []string `name:"oidc-approver-groups" env:"TOOLGATE_OIDC_APPROVER_GROUPS" placeholder:"GROUP,…" help:"Groups whose members are security approvers."`
	ViewerGroups     []string `name:"oidc-viewer-groups" env:"TOOLGATE_OIDC_VIEWER_GROUPS" placeholder:"GROUP,…" help:"Groups whose members are viewers."`
	RequireVerified  bool     `name:"oidc-require-verified-email" env:"TOOLGATE_OIDC_REQUIRE_VERIFIED_EMAIL" default:"true" negatable:"" help:"Refuse sign-ins whose email_verified claim is not true."`
}

// Enabled reports whether single sign-on is configured.
func (o OIDC) Enabled() bool { return o.Issuer != "" }

// validate appends o's problems to errs.
func (o OIDC) validate(errs []error, localLogin bool) []error {
	if !o.Enabled() {
		if !localLogin {
			errs = append(errs, fmt.Errorf("--local-login=false / TOOLGATE_LOCAL_LOGIN needs --oidc-issuer: nobody could sign in"))
		}
		return errs
	}
	if u, err := url.Parse(o.Issuer); err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname()))) {
		errs = append(errs, fmt.Errorf("--oidc-issuer / TOOLGATE_OIDC_ISSUER %q: want an https URL (http only on loopback, for tests)", o.Issuer))
	}
	if strings.TrimSpace(o.ClientID) == "" {
		errs = append(errs, fmt.Errorf("--oidc-client-id / TOOLGATE_OIDC_CLIENT_ID is empty: name the console's client at the provider"))
	}
	if o.ClientSecretFile == "" {
		errs = append(errs, fmt.Errorf("--oidc-client-secret-file / TOOLGATE_OIDC_CLIENT_SECRET_FILE is empty: name the file holding the client secret"))
	}
	if o.RedirectURL != "" {
		if u, err := url.Parse(o.RedirectURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--oidc-redirect-url / TOOLGATE_OIDC_REDIRECT_URL %q: want http(s)://host/path", o.RedirectURL))
		}
	}
	if len(o.AdminGroups)+len(o.ApproverGroups)+len(o.ViewerGroups) == 0 {
		errs = append(errs, fmt.Errorf("--oidc-admin-groups, --oidc-approver-groups, --oidc-viewer-groups are all empty: no group would give a role"))
	}
	return errs
}

func loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// ClientSecret reads the client secret: the first line of ClientSecretFile.
func (o OIDC) ClientSecret() (string, error) {
	b, err := os.ReadFile(o.ClientSecretFile)
	if err != nil {
		return "", fmt.Errorf("--oidc-client-secret-file: %w", err)
	}
	secret, _, _ := strings.Cut(string(b), "\n")
	if secret = strings.TrimSpace(secret); secret == "" {
		return "", fmt.Errorf("--oidc-client-secret-file %s: the first line is empty", o.ClientSecretFile)
	}
	return secret, nil
}
