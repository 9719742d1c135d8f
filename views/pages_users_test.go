package views

import "testing"

// users as web's users page lists them: the viewer, a managed account, a
// disabled break-glass one.
var testUsers = []UserRow{
	{ID: 1, Email: "ada@example.com", Roles: []string{"admin"}, IsSelf: true},
	{ID: 2, Email: "sso@example.com", Roles: []string{"approver"}, ManagedBy: "Okta"},
	{ID: 3, Email: "glass@example.com", Roles: []string{"admin", "viewer"}, Disabled: true, BreakGlass: true},
}

// TestUsersPage: one row per user, badges for managed and break-glass
// accounts, an enable/disable form per row (never on oneself) that HTMX
// swaps in place and that works as a plain POST.
func TestUsersPage(t *testing.T) {
	wantPage(t, UsersPage(UsersView{Page: page("Users"), Users: testUsers}), "Users",
		in("a.button[href='/users/new']", hasText("Add user")),
		count("[data-testid=users-table] tbody tr[data-testid=user-row]", 3),
		in("tr#user-1", hasText("ada@example.com"), none("form")),
		in("tr#user-2", in("[data-testid=managed-badge]", hasText("managed by Okta")), hasText("approver"),
			postForm("/users/2/disabled", hasAttr("hx-post", "/users/2/disabled"), hasAttr("hx-target", "closest tr"),
				in("input[name=disabled][value=true]"), in("button", hasText("Disable")))),
		in("tr#user-3", in("[data-testid=break-glass-badge]"), in(".badge.off", hasText("disabled")), hasText("admin, viewer"),
			postForm("/users/3/disabled", in("input[name=disabled][value=false]"), in("button", hasText("Enable")))))
}

// TestUserRowFragment is the row the enable/disable button swaps in.
func TestUserRowFragment(t *testing.T) {
	u := UserRow{ID: 7, Email: evil, Roles: nil}
	wantRows(t, UserRowFragment(u, csrf),
		in("tr#user-7[data-testid=user-row]", hasText(evil), hasText("none"), in(".badge.on", hasText("active"))),
		in("a[href='/users/7']"), postForm("/users/7/disabled"))
}

// TestUserNewPage: email, the three role boxes (checked as typed back),
// who asked for the account, and the initial password twice.
func TestUserNewPage(t *testing.T) {
	m := UserFormView{Page: page("Add user"), Email: "new@example.com", Roles: []string{"approver"},
		RequestedBy: "ada@example.com", Errors: []FormError{{Message: "That email is taken."}}}
	wantPage(t, UserNewPage(m), "Add user",
		postForm("/users", in("input#email[type=email][required]", hasAttr("value", "new@example.com")),
			in("fieldset legend", hasText("Roles")), count("input[type=checkbox][name=role]", 3),
			in("input[name=role][value=approver][checked]"), none("input[name=role][value=admin][checked]"),
			in("input#requested_by", hasAttr("value", "ada@example.com"), hasAttr("aria-describedby", "requested-by-hint")),
			in("input#password"), in("input#password_confirm"), in("label[for=password]", hasText("Initial password"))),
		in("[data-testid=form-error]", hasText("That email is taken.")))
}

// TestUserEditPage: a local account has roles, password reset and access
// forms; a managed one only access; oneself cannot be disabled.
func TestUserEditPage(t *testing.T) {
	tests := []struct {
		name   string
		u      UserRow
		checks []check
	}{
		{"local, disabled", testUsers[2], []check{
			in("[data-testid=break-glass-badge]"),
			postForm("/users/3/roles", in("input[name=role][value=admin][checked]"), in("input[name=role][value=viewer][checked]"),
				none("input[name=role][value=approver][checked]")),
			postForm("/users/3/password", in("input#password"), in("input#password_confirm")),
			postForm("/users/3/disabled", in("input[name=disabled][value=false]"), in("button", hasText("Enable user"))),
		}},
		{"managed", testUsers[1], []check{
			in("[data-testid=managed-by]", hasText("Managed by Okta"), hasText("(approver)")),
			none("form[action='/users/2/roles']"), none("form[action='/users/2/password']"),
			postForm("/users/2/disabled", in("button.danger", hasText("Disable user"))),
		}},
		{"self", testUsers[0], []check{
			postForm("/users/1/roles"), postForm("/users/1/password"), none("form[action='/users/1/disabled']"),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := UserEditView{Page: page(tc.u.Email), User: tc.u, Notice: "Roles saved."}
			wantPage(t, UserEditPage(m), tc.u.Email, append(tc.checks, in("[data-testid=notice]", hasText("Roles saved.")))...)
		})
	}
}
