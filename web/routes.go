package web

import (
	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/httperr"
)

// routes registers every route of the console, grouped by who may call it.
// Adding a route? Put it in the right group here and give it an entry in an
// authz_*_test.go file (see authz_core_test.go), or the matrix test fails.
//
// Role middleware is attached per route rather than with echo groups: an
// echo group with middleware also claims every unknown path under its
// prefix, which would turn 404s into 403s or sign-in redirects.
func (s *Server) routes() {
	e := s.echo
	// The logger is outermost so it records what was sent, panics included.
	// Every body is bounded (limitBodies) before the CSRF check parses a
	// form; upload routes skip both and get uploadGuard after their role
	// check instead (bodylimit.go). A person whose password an admin set
	// reaches nothing but the set-password page (ownPasswordFirst).
	e.Use(traceRequests, httperr.AccessLog(s.deps.Logger, bodyOverLimit), httperr.Recover, securityHeaders, varyOnHTMX, limitBodies, s.csrf(), s.loadSession, ownPasswordFirst)

	// Anyone, signed in or not.
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/static/:name", s.staticFile)
	e.GET("/favicon.ico", s.favicon)
	e.GET("/login", s.loginForm)
	e.POST("/login", s.loginSubmit)
	e.GET("/login/oidc", s.ssoBegin)
	e.GET(ssoCallbackPath, s.ssoCallback)
	e.GET("/setup", s.setupForm)
	e.POST("/setup", s.setupSubmit)

	// Any signed-in user, whatever their roles.
	signedIn := []echo.MiddlewareFunc{requireSignedIn}
	e.POST("/logout", s.logout, signedIn...)
	e.GET("/account", s.accountForm, signedIn...)
	e.POST("/account/password", s.accountPassword, signedIn...)
	e.GET(setPasswordPath, s.setPasswordForm, signedIn...)
	e.POST(setPasswordPath, s.setPassword, signedIn...)
	// A call request's page: its principal confirms a confirm-mode call
	// whatever their roles; approvers decide approve-mode calls (the
	// handler and the store check who, R16).
	e.GET("/approvals/calls/:id", s.callPage, signedIn...)
	e.POST("/approvals/calls/:id/approve", s.callApprove, signedIn...)
	e.POST("/approvals/calls/:id/deny", s.callDeny, signedIn...)

	// Viewer and up: every role may read.
	viewer := []echo.MiddlewareFunc{requireRole(auth.RoleViewer, auth.RoleApprover, auth.RoleAdmin)}
	e.GET("/", s.dashboard, viewer...)
	e.GET("/sources", s.sourcesList, viewer...)
	e.GET("/sources/:name", s.sourcesShow, viewer...)
	e.GET("/tools", s.toolsList, viewer...)
	e.GET("/risk-rules", s.riskRules, viewer...)
	e.GET("/tools/:name", s.toolsShow, viewer...)
	e.GET("/tools/:name/policy", s.toolPolicyPage, viewer...)
	e.GET("/approvals", s.approvalsList, viewer...)
	e.GET("/approvals/calls", s.approvalsCalls, viewer...)
	e.GET("/defaults", s.defaultsEdit, viewer...)
	e.GET("/audit", s.auditList, viewer...)
	e.GET("/audit/export", s.auditExport, viewer...)
	e.GET("/calls", s.callsList, viewer...)
	e.GET("/bundles", s.bundlesPage, viewer...)
	e.GET("/bundles/compare", s.bundlesCompare, viewer...)
	e.GET("/bundles/next", s.bundlesNext, viewer...)
	e.GET("/bundles/:version/download", s.bundlesDownload, viewer...)
	e.GET("/keys", s.keysPage, viewer...)
	e.GET("/runtimes", s.runtimesList, viewer...)

	// Approver: decides change requests (the store refuses self-approval).
	approver := []echo.MiddlewareFunc{requireRole(auth.RoleApprover)}
	e.POST("/approvals/:id/approve", s.approvalsApprove, approver...)
	e.POST("/approvals/:id/reject", s.approvalsReject, approver...)

	// Admin.
	admin := []echo.MiddlewareFunc{requireRole(auth.RoleAdmin)}
	e.GET("/users", s.usersList, admin...)
	e.GET("/users/new", s.usersNew, admin...)
	e.POST("/users", s.usersSave, admin...)
	e.GET("/users/:id", s.usersEdit, admin...)
	e.POST("/users/:id/roles", s.usersRoles, admin...)
	e.POST("/users/:id/disabled", s.usersDisabled, admin...)
	e.POST("/users/:id/password", s.usersPassword, admin...)
	e.POST("/sources", s.sourcesImport, append(admin, s.uploadGuard)...)
	e.POST("/sources/:name/apply", s.sourcesApply, admin...)
	e.POST("/tools/bulk", s.toolsBulkReview, admin...)
	e.POST("/tools/bulk/apply", s.toolsBulkApply, admin...)
	e.POST("/tools/:name/risk", s.toolsRaiseRisk, admin...)
	e.POST("/tools/:name/schema-gaps/acknowledge", s.toolsAcknowledgeSchemaGaps, admin...)
	e.POST("/tools/:name/policy", s.toolPolicySave, admin...)
	e.POST("/tools/:name/policy/preview", s.toolPolicyPreview, admin...)
	e.POST("/tools/:name/policy/try", s.toolPolicyTry, admin...)
	e.GET("/tools/:name/actions/:kind", s.toolActionForm, admin...)
	e.POST("/tools/:name/actions/:kind", s.toolActionSubmit, admin...)
	e.POST("/approvals/:id/withdraw", s.approvalsWithdraw, admin...)
	e.POST("/defaults", s.defaultsSave, admin...)
	e.POST("/defaults/preview", s.defaultsPreview, admin...)
	e.POST("/bundles", s.bundlesPublish, admin...)
	e.GET("/bundles/:version/rollback", s.bundlesRollbackConfirm, admin...)
	e.POST("/bundles/:version/rollback", s.bundlesRollback, admin...)
	e.POST("/bundles/:version/push", s.bundlesRetryPush, admin...)
	e.POST("/keys/rotate", s.keysRotate, admin...)
	e.POST("/keys/:kid/retire", s.keysRetire, admin...)
	e.GET("/tokens", s.tokensPage, admin...)
	e.POST("/tokens", s.tokensCreate, admin...)
	e.POST("/tokens/:name/revoke", s.tokensRevoke, admin...)
	e.GET("/webhooks", s.webhooksPage, admin...)
	e.POST("/webhooks", s.webhooksCreate, admin...)
	e.GET("/webhooks/:id", s.webhookLog, admin...)
	e.POST("/webhooks/:id/delete", s.webhooksDelete, admin...)
}
