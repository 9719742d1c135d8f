package sso

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"time"

	"golang.org/x/oauth2"
)

// FlowLifetime bounds the time between Begin and the callback.
const FlowLifetime = 10 * time.Minute

// Flow is one sign-in in progress, kept by the browser (encrypted) between
// Begin and Finish. Each value is used once.
type Flow struct {
	State    string    `json:"s"`
	Nonce    string    `json:"n"`
	Verifier string    `json:"v"`
	Next     string    `json:"x"`
	Expires  time.Time `json:"e"`
}

func newFlow(next string, now time.Time) (Flow, error) {
	state, err := random()
	if err != nil {
		return Flow{}, err
	}
	nonce, err := random()
	if err != nil {
		return Flow{}, err
	}
	return Flow{State: state, Nonce: nonce, Verifier: oauth2.GenerateVerifier(), Next: next,
		Expires: now.Add(FlowLifetime)}, nil
}

func random() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("sso: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// same compares two secrets in constant time; empty never matches.
func same(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
