//go:build runtimeonly

package cli

// commands of the runtime-only build (`make build-runtime`,
// bin/toolgate-runtime): the runtime and what an operator of one needs
// beside it. Nothing here links the console (web, store, importer,
// OpenAPI parser, SQLite, PostgreSQL), so the binary is a fraction of
// the whole one and a runtime's resident memory holds none of it.
type commands struct {
	Runtime    runtimeCmd       `cmd:"" help:"Fetch and verify bundles from the console and serve their tools to agents over MCP (HTTP, or --stdio)."`
	Bundle     runtimeBundleCmd `cmd:"" help:"Work with signed policy bundles (verify)."`
	AgentToken agentTokenCmd    `cmd:"" name:"agent-token" help:"Manage a runtime's agent-token file (agents without an OpenID provider)."`
	Version    versionCmd       `cmd:"" help:"Print the toolgate version."`
	Help       helpCmd          `cmd:"" help:"Show help for toolgate or one of its commands."`
}

// runtimeBundleCmd is `bundle` without export (which reads the console's
// database).
type runtimeBundleCmd struct {
	Verify bundleVerifyCmd `cmd:"" help:"Verify a signed bundle file offline against a public key (exit 0 valid, 1 refused, 2 unusable input)."`
}
