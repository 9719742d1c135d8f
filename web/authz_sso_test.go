package web

// Single sign-on's routes. The matrix app has no provider configured, so
// both answer 404 to everyone; TestSSOAuthorization (sso_test.go) checks
// them again with a real provider.
func init() {
	authzCases = append(authzCases, []authzCase{
		{"GET", "/login/oidc", 404, 404, 404, 404},
		{"GET", "/login/oidc/callback", 404, 404, 404, 404},
	}...)
}
