package web

// Per-call decisions (R16): the Calls section and a call request's page.
// A call request that does not exist is 404 for everyone signed in (a
// confirm-mode request is shown to its principal alone).
func init() {
	const (
		see      = 303
		unauth   = 401
		notFound = 404
	)
	authzCases = append(authzCases, []authzCase{
		// Without HX-Request the section is the Approvals page's: a redirect there.
		{"GET", "/approvals/calls", see, see, see, see},
		{"GET", "/approvals/calls/:id", see, notFound, notFound, notFound},
		{"POST", "/approvals/calls/:id/approve", unauth, notFound, notFound, notFound},
		{"POST", "/approvals/calls/:id/deny", unauth, notFound, notFound, notFound},
	}...)
}
