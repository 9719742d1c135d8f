package web

// The policy editor, change requests, approvals, project defaults and the
// audit log. :name expands to "app.css", which is no tool, so allowed
// callers get 404 there; handler tests cover the successful paths.
func init() {
	const (
		ok     = 200
		see    = 303
		bad    = 400
		unauth = 401
		forbid = 403
		gone   = 404
	)
	authzCases = append(authzCases, []authzCase{
		{"GET", "/tools/:name/policy", see, gone, gone, gone},
		{"POST", "/tools/:name/policy", unauth, forbid, forbid, gone},
		{"POST", "/tools/:name/policy/preview", unauth, forbid, forbid, gone},
		{"POST", "/tools/:name/policy/try", unauth, forbid, forbid, gone},
		{"GET", "/tools/:name/actions/:kind", see, forbid, forbid, gone},
		{"POST", "/tools/:name/actions/:kind", unauth, forbid, forbid, gone},

		{"GET", "/approvals", see, ok, ok, ok},
		{"POST", "/approvals/:id/approve", unauth, forbid, gone, forbid},
		{"POST", "/approvals/:id/reject", unauth, forbid, bad, forbid}, // a rejection needs a comment
		{"POST", "/approvals/:id/withdraw", unauth, forbid, forbid, gone},

		{"GET", "/defaults", see, ok, ok, ok},
		{"POST", "/defaults", unauth, forbid, forbid, bad},
		{"POST", "/defaults/preview", unauth, forbid, forbid, ok},

		{"GET", "/audit", see, ok, ok, ok},
		{"GET", "/audit/export", see, ok, ok, ok},
	}...)
}
