package store

import (
	"context"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/auth"
)

// SetUserRoles replaces a user's roles, audited as "user.roles". Removing
// the admin role from the last enabled admin is a Conflict: nobody could
// manage users any more.
func (db *DB) SetUserRoles(ctx context.Context, actor string, id int64, roles []auth.Role) error {
	return db.inTx(ctx, "set user roles", func(tx *sqlx.Tx) error {
		if len(roles) == 0 {
			return apperr.Invalidf("Give the user at least one role.")
		}
		before, err := userByID(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := refuseManaged(before, "roles"); err != nil {
			return err
		}
		grant := !before.Has(auth.RoleApprover) && slices.Contains(roles, auth.RoleApprover)
		if grant {
			if err := db.approverPower(ctx, tx, actor, id, actGrantApprover, "give the approver role"); err != nil {
				return err
			}
		}
		if err := setRoles(ctx, tx, id, roles); err != nil {
			return err
		}
		if err := ensureAnAdmin(ctx, tx); err != nil {
			return err
		}
		return db.recordUserChange(ctx, tx, actor, "user.roles", before)
	})
}

// SetUserDisabled disables or re-enables a user ("user.disable" /
// "user.enable"). Disabling ends all of the user's sessions at once.
// Disabling the last enabled admin is a Conflict.
func (db *DB) SetUserDisabled(ctx context.Context, actor string, id int64, disabled bool) error {
	return db.inTx(ctx, "set user disabled", func(tx *sqlx.Tx) error {
		before, err := userByID(ctx, tx, id)
		if err != nil {
			return err
		}
		if before.Disabled && !disabled {
			if err := db.accountAct(ctx, tx, actor, before, actEnable, "re-enable an approver"); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET disabled = ?, updated_at = ? WHERE id = ?`,
			disabled, formatTime(db.Now()), id); err != nil {
			return err
		}
		if disabled {
			if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, id); err != nil {
				return err
			}
		}
		if err := ensureAnAdmin(ctx, tx); err != nil {
			return err
		}
		action := "user.enable"
		if disabled {
			action = "user.disable"
		}
		return db.recordUserChange(ctx, tx, actor, action, before)
	})
}

// PasswordChange says who changes a password and which sessions survive.
type PasswordChange struct {
	Actor  string
	UserID int64
	Hash   string
	// Reset is true when an admin sets someone's password ("user.password_reset"),
	// false when people change their own ("user.password_change").
	Reset bool
	// KeepSessionToken, if set, is the one session not ended (the person
	// changing their own password stays signed in; every other copy ends).
	KeepSessionToken string
}

// SetUserPassword stores a new password hash and ends the user's other
// sessions, so a stolen session does not outlive a password change. A
// reset by another console user is a password that admin knows: it works
// for one sign-in (users_password.go).
func (db *DB) SetUserPassword(ctx context.Context, pc PasswordChange) error {
	return db.inTx(ctx, "set user password", func(tx *sqlx.Tx) error {
		before, err := userByID(ctx, tx, pc.UserID)
		if err != nil {
			return err
		}
		if err := refuseManaged(before, "password"); err != nil {
			return err
		}
		if pc.Reset {
			if err := db.accountAct(ctx, tx, pc.Actor, before, actPasswordReset, "reset an approver's password"); err != nil {
				return err
			}
		}
		state, err := db.passwordStateAfter(ctx, tx, pc)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ?, password_state = ?, updated_at = ? WHERE id = ?`,
			pc.Hash, state, formatTime(db.Now()), pc.UserID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ? AND id_hash <> ?`,
			pc.UserID, hashToken(pc.KeepSessionToken)); err != nil {
			return err
		}
		action := "user.password_change"
		if pc.Reset {
			action = "user.password_reset"
		}
		return db.recordUserChange(ctx, tx, pc.Actor, action, before)
	})
}

// passwordStateAfter is what the password of pc is: the person's own,
// unless another console user reset it.
func (db *DB) passwordStateAfter(ctx context.Context, tx *sqlx.Tx, pc PasswordChange) (string, error) {
	if !pc.Reset {
		return passwordOwn, nil
	}
	a, err := resolveActor(ctx, tx, pc.Actor)
	if err != nil || a.user == nil || a.user.ID == pc.UserID {
		return passwordOwn, err
	}
	return passwordInitial, nil
}

// accountAct checks and records act (enable, password reset) by actor on
// subject: an approver power when subject holds the approver role. Acts on
// one's own account are not recorded (they make nobody a sockpuppet).
func (db *DB) accountAct(ctx context.Context, tx *sqlx.Tx, actor string, subject *User, act, power string) error {
	a, err := resolveActor(ctx, tx, actor)
	if err != nil {
		return err
	}
	if a.user != nil && a.user.ID == subject.ID {
		return nil
	}
	if subject.Has(auth.RoleApprover) {
		if err := mayUseApproverPowers(ctx, tx, a, power); err != nil {
			return err
		}
	}
	return db.recordAct(ctx, tx, subject.ID, act, a, 0)
}

// approverPower checks and records an approver power by actor on subject.
func (db *DB) approverPower(ctx context.Context, tx *sqlx.Tx, actor string, subject int64, act, power string) error {
	a, err := resolveActor(ctx, tx, actor)
	if err != nil {
		return err
	}
	if act == actGrantApprover {
		if err := db.ssoForbidsGrant(a); err != nil {
			return err
		}
	}
	if err := mayUseApproverPowers(ctx, tx, a, power); err != nil {
		return err
	}
	return db.recordAct(ctx, tx, subject, act, a, 0)
}

// recordUserChange audits the user's state before and after this tx's change.
func (db *DB) recordUserChange(ctx context.Context, tx *sqlx.Tx, actor, action string, before *User) error {
	after, err := userByID(ctx, tx, before.ID)
	if err != nil {
		return err
	}
	return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: action, Subject: subjectUser(before.ID),
		Before: auditJSON(before.auditView()), After: auditJSON(after.auditView())})
}

func ensureAnAdmin(ctx context.Context, tx *sqlx.Tx) error {
	var n int
	err := tx.GetContext(ctx, &n, `SELECT count(*) FROM users u JOIN user_roles r ON r.user_id = u.id
		WHERE r.role = 'admin' AND u.disabled = 0`)
	if err != nil {
		return err
	}
	if n == 0 {
		return apperr.Conflictf("That would leave no enabled admin.")
	}
	return nil
}
