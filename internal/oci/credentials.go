package oci

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Environment variables holding registry credentials.
const (
	EnvUsername = "TOOLGATE_REGISTRY_USERNAME"
	EnvPassword = "TOOLGATE_REGISTRY_PASSWORD"
)

// Credentials sign in to the registry (HTTP basic, or the token flow the
// registry asks for). The zero value is anonymous access.
type Credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// GoString keeps the password out of %#v.
func (c Credentials) GoString() string { return c.String() }

// String keeps the password out of %v and logs.
func (c Credentials) String() string {
	if c.Password == "" {
		return fmt.Sprintf("oci.Credentials{Username: %q}", c.Username)
	}
	return fmt.Sprintf("oci.Credentials{Username: %q, Password: ***}", c.Username)
}

// LoadCredentials reads credentials from file (JSON {"username","password"})
// when it is not empty, otherwise from EnvUsername/EnvPassword; none at all
// is anonymous access. A username without a password (or the reverse) is
// refused. Errors never contain the secret.
func LoadCredentials(file string, getenv func(string) string) (Credentials, error) {
	var c Credentials
	if file != "" {
		raw, err := os.ReadFile(file)
		if err != nil {
			return Credentials{}, fmt.Errorf("registry credentials: %w", err)
		}
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			// Not %w: a syntax error could quote part of the file.
			return Credentials{}, fmt.Errorf("registry credentials file %s: want JSON {\"username\": \"…\", \"password\": \"…\"}", file)
		}
	} else {
		c = Credentials{Username: strings.TrimSpace(getenv(EnvUsername)), Password: getenv(EnvPassword)}
	}
	if (c.Username == "") != (c.Password == "") {
		return Credentials{}, errors.New("registry credentials: give both a username and a password, or neither")
	}
	return c, nil
}
