//go:build !runtimeonly

package cli

// commands lists every subcommand. Add a field per command; keep them sorted
// the way `toolgate help` should show them.
type commands struct {
	Serve   serveCmd   `cmd:"" help:"Run the web console (migrates the database first)."`
	Migrate migrateCmd `cmd:"" help:"Apply pending database migrations."`
	User    userCmd    `cmd:"" help:"Manage console users."`
	Audit   auditCmd   `cmd:"" help:"Check the audit log."`
	Inspect inspectCmd `cmd:"" help:"Parse an API description and classify every operation, without a database."`
	Import  importCmd  `cmd:"" help:"Import an API description into a source (re-import shows and applies the diff)."`
	Version versionCmd `cmd:"" help:"Print the toolgate version."`
	Help    helpCmd    `cmd:"" help:"Show help for toolgate or one of its commands."`
	Bundle  bundleCmd  `cmd:"" help:"Work with signed policy bundles (verify, export)."`
	Publish publishCmd `cmd:"" help:"Sign the exposed, approved tools as the next bundle version and print the version."`
	Keys    keysCmd    `cmd:"" help:"Manage bundle signing keys (list, rotate, retire, export)."`
	Token   tokenCmd   `cmd:"" help:"Create or revoke runtime tokens."`
	Call    callCmd    `cmd:"" help:"Make one tool call through the executor and print the classified result as JSON (exit 0 ok, 1 classified error, 2 no call possible)."`
	Runtime runtimeCmd `cmd:"" help:"Fetch and verify bundles from the console and serve their tools to agents over MCP (HTTP, or --stdio)."`

	AgentToken agentTokenCmd `cmd:"" name:"agent-token" help:"Manage a runtime's agent-token file (agents without an OpenID provider)."`

	SampleAPI sampleAPICmd `cmd:"" name:"sample-api" help:"Serve a sample upstream API (orders, admin users) with fault switches, to try toolgate on."`
}
