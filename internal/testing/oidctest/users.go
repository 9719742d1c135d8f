package oidctest

import (
	"slices"
	"sync"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/text/language"
)

// User is one account at the test provider.
type User struct {
	// ID is the subject ("sub") the provider asserts.
	ID       string
	Username string
	Password string
	Email    string
	// EmailVerified is the email_verified claim.
	EmailVerified bool
	Groups        []string
}

// users is the provider's user directory; it implements the example
// storage's UserStore and holds the groups, which that store does not know.
type users struct {
	mu   sync.Mutex
	byID map[string]*User
}

func (u *users) add(nu User) {
	u.mu.Lock()
	defer u.mu.Unlock()
	c := nu
	c.Groups = slices.Clone(nu.Groups)
	u.byID[nu.ID] = &c
}

func (u *users) setGroups(id string, groups []string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	x, ok := u.byID[id]
	if ok {
		x.Groups = slices.Clone(groups)
	}
	return ok
}

func (u *users) groups(id string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if x, ok := u.byID[id]; ok {
		return slices.Clone(x.Groups)
	}
	return nil
}

func toStorage(x *User) *storage.User {
	return &storage.User{ID: x.ID, Username: x.Username, Password: x.Password, FirstName: x.Username,
		LastName: "Test", Email: x.Email, EmailVerified: x.EmailVerified, PreferredLanguage: language.English}
}

// GetUserByID implements storage.UserStore.
func (u *users) GetUserByID(id string) *storage.User {
	u.mu.Lock()
	defer u.mu.Unlock()
	if x, ok := u.byID[id]; ok {
		return toStorage(x)
	}
	return nil
}

// GetUserByUsername implements storage.UserStore.
func (u *users) GetUserByUsername(name string) *storage.User {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, x := range u.byID {
		if x.Username == name {
			return toStorage(x)
		}
	}
	return nil
}

// ExampleClientID implements storage.UserStore (the example's service
// user for JWT profile grants, which these tests do not use).
func (u *users) ExampleClientID() string { return "unused-service-client" }
