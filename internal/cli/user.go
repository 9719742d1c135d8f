package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
)

type userCmd struct {
	Add userAddCmd `cmd:"" help:"Add a console user."`
}

type userAddCmd struct {
	dataDirFlag   `embed:""`
	Email         string   `required:"" help:"The user's email address (their sign-in name)."`
	Role          []string `required:"" enum:"admin,approver,viewer" help:"A role: admin, approver or viewer (repeat for several)."`
	PasswordStdin bool     `name:"password-stdin" help:"Read the password from the first line of stdin instead of generating one."`
	RequestedBy   string   `name:"requested-by" placeholder:"EMAIL" help:"The console user who asked for this account: it then cannot approve their requests for the approver-independence window."`
}

// Run adds the user as an operator act on the host, audited with actor
// store.OperatorActor ("operator@host"), which may give the approver role
// (R10's approver powers). Without --password-stdin it generates a
// password and prints it once.
func (c *userAddCmd) Run(ctx context.Context, env *Env) error {
	roles, err := auth.NormalizeRoles(c.Role)
	if err != nil {
		return Exit(2, err)
	}
	password, generated, err := c.password(env)
	if err != nil {
		return Exit(2, err)
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return err
	}
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := db.CreateUser(ctx, store.OperatorActor,
		store.NewUser{Email: c.Email, PasswordHash: hash, Roles: roles, RequestedBy: c.RequestedBy})
	if err != nil {
		return userError(err)
	}
	fmt.Fprintf(env.Stdout, "added user %s (id %d) with roles %v\n", u.Email, u.ID, u.Roles)
	if generated {
		fmt.Fprintf(env.Stdout, "password: %s\n(shown once; the user can change it on the account page)\n", password)
	}
	return nil
}

func (c *userAddCmd) password(env *Env) (pw string, generated bool, err error) {
	if !c.PasswordStdin {
		pw, err = auth.GeneratePassword()
		return pw, true, err
	}
	line, err := bufio.NewReader(env.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", false, fmt.Errorf("reading the password from stdin: %w", err)
	}
	pw = strings.TrimRight(line, "\r\n")
	if msg := auth.CheckPasswordPolicy(pw); msg != "" {
		return "", false, errors.New(msg)
	}
	return pw, false, nil
}
