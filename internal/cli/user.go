//go:build !runtimeonly

package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
)

type userCmd struct {
	Add        userAddCmd        `cmd:"" help:"Add a console user."`
	BreakGlass userBreakGlassCmd `cmd:"" name:"break-glass" help:"Mark a local account as break-glass: it may sign in with a password while --local-login=false (every use is audited and shown on the dashboard)."`
	Enable     userEnableCmd     `cmd:"" help:"Re-enable a disabled account, approvers included (an admin who is not an approver cannot)."`
}

type userEnableCmd struct {
	dataDirFlag `embed:""`
	Email       string `required:"" help:"The account's email address."`
}

// Run re-enables the account as an operator act, audited as "user.enable"
// by store.OperatorActor: the way back when every approver was disabled by
// an admin who cannot re-enable them.
func (c *userEnableCmd) Run(ctx context.Context, env *Env) error {
	email, err := store.NormalizeEmail(c.Email)
	if err != nil {
		return Exit(2, err)
	}
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := db.UserByEmail(ctx, email)
	if apperr.CodeOf(err) == apperr.NotFound {
		return Exit(1, fmt.Errorf("no console user has the email %s", email))
	}
	if err != nil {
		return err
	}
	if !u.Disabled {
		fmt.Fprintf(env.Stdout, "%s is enabled already: nothing changed.\n", u.Email)
		return nil
	}
	if err := db.SetUserDisabled(ctx, store.OperatorActor, u.ID, false); err != nil {
		return userError(err)
	}
	fmt.Fprintf(env.Stdout, "%s is enabled again and may sign in (audited as user.enable by %s).\n", u.Email, store.OperatorActor)
	return nil
}

type userBreakGlassCmd struct {
	dataDirFlag `embed:""`
	Email       string `required:"" help:"The local account's email address."`
	Off         bool   `help:"Remove the mark instead."`
}

// Run marks or unmarks the account, audited as "user.break_glass" by
// store.OperatorActor. Only the host can do this: no console page can.
func (c *userBreakGlassCmd) Run(ctx context.Context, env *Env) error {
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	email, err := store.NormalizeEmail(c.Email)
	if err != nil {
		return Exit(2, err)
	}
	u, err := db.SetBreakGlass(ctx, store.OperatorActor, email, !c.Off)
	if err != nil {
		return userError(err)
	}
	if u.BreakGlass {
		fmt.Fprintf(env.Stdout, "%s is a break-glass account: it may sign in with its password even with --local-login=false.\n"+
			"Every such sign-in is audited (login.break_glass) and shown on the dashboard.\n", u.Email)
	} else {
		fmt.Fprintf(env.Stdout, "%s is no longer a break-glass account; its sessions have been ended.\n", u.Email)
	}
	return nil
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
