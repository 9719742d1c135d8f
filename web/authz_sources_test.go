package web

// Sources, tools, tool detail and bulk actions. :name becomes "app.css",
// which is neither a source nor a tool.
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
		{"GET", "/sources", see, ok, ok, ok},
		{"GET", "/sources/:name", see, gone, gone, gone},
		{"GET", "/tools", see, ok, ok, ok},
		{"GET", "/tools/:name", see, gone, gone, gone},
		{"POST", "/sources", unauth, forbid, forbid, bad},                              // nothing uploaded
		{"POST", "/sources/:name/apply", unauth, forbid, forbid, bad},                  // no previewed digest
		{"POST", "/tools/bulk", unauth, forbid, forbid, bad},                           // no action
		{"POST", "/tools/bulk/apply", unauth, forbid, forbid, bad},                     // no action
		{"POST", "/tools/:name/risk", unauth, forbid, forbid, gone},                    // no such tool
		{"POST", "/tools/:name/schema-gaps/acknowledge", unauth, forbid, forbid, gone}, // no such tool
	}...)
}
