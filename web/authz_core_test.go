package web

// The foundation's routes. A feature adds its own authz_<feature>_test.go
// with an init that appends to authzCases (see authz_test.go).
func init() {
	const (
		ok       = 200
		see      = 303 // redirect: to the sign-in page for anonymous GETs, or after a POST
		bad      = 400 // empty form refused as invalid
		unauth   = 401
		forbid   = 403
		conflict = 409
	)
	authzCases = append(authzCases, []authzCase{
		{"GET", "/healthz", ok, ok, ok, ok},
		{"GET", "/readyz", ok, ok, ok, ok},
		{"GET", "/static/:name", ok, ok, ok, ok},
		{"GET", "/favicon.ico", ok, ok, ok, ok},
		{"GET", "/login", ok, see, see, see},
		{"POST", "/login", unauth, unauth, unauth, unauth},
		// Users exist: any setup link answers "Setup is already done", and
		// a POST is refused (409) without creating anyone.
		{"GET", "/setup", ok, ok, ok, ok},
		{"POST", "/setup", conflict, conflict, conflict, conflict},

		{"POST", "/logout", unauth, see, see, see},
		{"GET", "/account", see, ok, ok, ok},
		{"POST", "/account/password", unauth, bad, bad, bad},
		{"GET", "/account/set-password", see, see, see, see}, // to /account: their passwords are their own
		{"POST", "/account/set-password", unauth, bad, bad, bad},

		{"GET", "/", see, ok, ok, ok},

		{"GET", "/users", see, forbid, forbid, ok},
		{"GET", "/users/new", see, forbid, forbid, ok},
		{"POST", "/users", unauth, forbid, forbid, bad},
		{"GET", "/users/:id", see, forbid, forbid, ok},
		{"POST", "/users/:id/roles", unauth, forbid, forbid, bad},
		{"POST", "/users/:id/disabled", unauth, forbid, forbid, bad},
		{"POST", "/users/:id/password", unauth, forbid, forbid, bad},
	}...)
}
