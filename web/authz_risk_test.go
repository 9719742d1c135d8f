package web

// The risk rule table page: every signed-in role reads it.
func init() {
	authzCases = append(authzCases, []authzCase{
		{"GET", "/risk-rules", 303, 200, 200, 200},
	}...)
}
