package sampleapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// User roles.
const (
	roleAdmin  = "admin"
	roleMember = "member"
)

// User is an account of the sample API (the privileged admin resources).
type User struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

// APIKey is a user's API key. Secret is only ever returned by the create
// call, like real APIs do; listings show the prefix.
type APIKey struct {
	ID        string    `json:"id"`
	UserID    string    `json:"user_id"`
	Name      string    `json:"name"`
	Prefix    string    `json:"prefix"`
	Secret    string    `json:"secret,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

type userInput struct {
	Email string `json:"email"`
	Name  string `json:"name"`
	Role  string `json:"role,omitempty"`
}

type apiKeyInput struct {
	Name string `json:"name"`
}

// list is the generic {"data": [...]} envelope of the admin listings.
type list[T any] struct {
	Data []T `json:"data"`
}

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, list[User]{Data: s.state.listUsers()})
	return nil
}

func (s *Server) createUser(w http.ResponseWriter, r *http.Request) error {
	var in userInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Role == "" {
		in.Role = roleMember
	}
	switch {
	case !strings.Contains(in.Email, "@") || len(in.Email) > 254:
		return errf(http.StatusUnprocessableEntity, codeInvalid, "email must be an email address")
	case in.Name == "" || len(in.Name) > 200:
		return errf(http.StatusUnprocessableEntity, codeInvalid, "name is required (at most 200 characters)")
	case in.Role != roleAdmin && in.Role != roleMember:
		return errf(http.StatusUnprocessableEntity, codeInvalid, "role must be admin or member")
	}
	u, err := s.state.createUser(in, s.now().UTC())
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/admin/users/"+u.ID)
	writeJSON(w, http.StatusCreated, u)
	return nil
}

func (s *Server) deleteUser(w http.ResponseWriter, r *http.Request) error {
	if err := s.state.deleteUser(r.PathValue("user_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.state.listAPIKeys(r.PathValue("user_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list[APIKey]{Data: keys})
	return nil
}

func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var in apiKeyInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Name == "" || len(in.Name) > 100 {
		return errf(http.StatusUnprocessableEntity, codeInvalid, "name is required (at most 100 characters)")
	}
	secret, err := newSecret()
	if err != nil {
		return err
	}
	k, err := s.state.createAPIKey(r.PathValue("user_id"), in.Name, secret, s.now().UTC())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, k)
	return nil
}

// newSecret makes a random key secret: ids are deterministic for tests, but
// credential material must not be guessable even in a sample.
func newSecret() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating an API key secret: %w", err)
	}
	return "sk_sample_" + hex.EncodeToString(b), nil
}

func (st *state) listUsers() []User {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]User, 0, len(st.userIDs))
	for _, id := range st.userIDs {
		out = append(out, st.users[id])
	}
	return out
}

func (st *state) createUser(in userInput, now time.Time) (User, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, u := range st.users {
		if strings.EqualFold(u.Email, in.Email) {
			return User{}, errf(http.StatusConflict, codeConflict, "a user with email %q already exists (%s)", in.Email, u.ID)
		}
	}
	st.lastUser++
	u := User{ID: fmt.Sprintf("usr_%04d", st.lastUser), Email: in.Email, Name: in.Name, Role: in.Role, CreatedAt: now}
	st.users[u.ID] = u
	st.userIDs = append(st.userIDs, u.ID)
	return u, nil
}

// deleteUser removes the user and revokes their API keys with them.
func (st *state) deleteUser(id string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.users[id]; !ok {
		return notFound("user", id)
	}
	delete(st.users, id)
	delete(st.apiKeys, id)
	st.userIDs = removeID(st.userIDs, id)
	return nil
}

func (st *state) listAPIKeys(userID string) ([]APIKey, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.users[userID]; !ok {
		return nil, notFound("user", userID)
	}
	out := make([]APIKey, 0, len(st.apiKeys[userID]))
	for _, k := range st.apiKeys[userID] {
		k.Secret = ""
		out = append(out, k)
	}
	return out, nil
}

// createAPIKey stores the key and returns it with its secret, the only time
// the secret is shown.
func (st *state) createAPIKey(userID, name, secret string, now time.Time) (APIKey, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.users[userID]; !ok {
		return APIKey{}, notFound("user", userID)
	}
	st.lastKey++
	k := APIKey{
		ID:        fmt.Sprintf("key_%04d", st.lastKey),
		UserID:    userID,
		Name:      name,
		Prefix:    secret[:len("sk_sample_")+6],
		CreatedAt: now,
	}
	st.apiKeys[userID] = append(st.apiKeys[userID], k)
	k.Secret = secret
	return k, nil
}
