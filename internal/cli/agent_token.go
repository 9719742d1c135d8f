package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/internal/agentauth"
)

// agentTokenCmd groups the commands on a runtime's agent-token file.
type agentTokenCmd struct {
	Add agentTokenAddCmd `cmd:"" help:"Make an agent token, append its hash to the file, and print the token once."`
}

type agentTokenAddCmd struct {
	File   string   `name:"file" required:"" placeholder:"FILE" help:"Agent-token file (created with mode 0600 when missing); the runtime's --agent-tokens."`
	Name   string   `name:"name" required:"" help:"Who the token is for: the principal's subject in logs and policies."`
	Groups []string `name:"groups" placeholder:"GROUP" help:"The agent's groups; repeat or separate with commas."`
}

// Run prints the token alone on stdout (for scripts) and a reminder on
// stderr: the file keeps only its SHA-256.
func (c *agentTokenAddCmd) Run(_ context.Context, env *Env) error {
	token, err := agentauth.AddToken(c.File, c.Name, c.Groups, time.Now())
	if err != nil {
		return Exit(2, fmt.Errorf("agent-token add: %w", err))
	}
	fmt.Fprintln(env.Stdout, token)
	fmt.Fprintf(env.Stderr, "agent token %q added to %s; it is shown only this once (a running runtime picks it up within a second)\n", c.Name, c.File)
	return nil
}
