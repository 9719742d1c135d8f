// Package audit is the tamper-evident part of R12: every audit entry carries
// the hash of the entry before it, and its own hash over a canonical encoding
// of its fields, so changing, removing or reordering an entry breaks the chain
// at that entry. The package is pure: the store persists entries, this
// package computes and checks hashes.
package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// GenesisHash is the prev_hash of the first entry of a chain.
const GenesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// TimeLayout is how At is written in the canonical encoding (and stored):
// fixed width, UTC, nanoseconds, so it round-trips exactly.
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// Entry is one audit record. Before and After are JSON documents (or empty)
// describing the state the action changed.
type Entry struct {
	ID       int64
	At       time.Time
	Actor    string // who did it: a user's email, "cli", "system", or the email tried on a failed login
	Action   string // what happened, e.g. "user.add", "login.failure"
	Subject  string // what it happened to, e.g. "user:3"
	Before   string
	After    string
	PrevHash string
	Hash     string
}

// Canonical returns the bytes the entry's hash is computed over: a JSON
// array of the fields in a fixed order, with At in TimeLayout. Strings are
// JSON-escaped, so no field can run into the next one.
func Canonical(e Entry) []byte {
	fields := []any{e.ID, e.At.UTC().Format(TimeLayout), e.Actor, e.Action, e.Subject, e.Before, e.After, e.PrevHash}
	b, err := json.Marshal(fields)
	if err != nil {
		// Only strings and an int64 are marshalled: this cannot fail.
		panic(fmt.Sprintf("audit: canonical encoding: %v", err))
	}
	return b
}

// ComputeHash returns the hex SHA-256 of the entry's canonical encoding.
func ComputeHash(e Entry) string {
	sum := sha256.Sum256(Canonical(e))
	return hex.EncodeToString(sum[:])
}

// Seal fills PrevHash and Hash of e so that it follows prev (nil for the
// first entry of a chain).
func Seal(e Entry, prev *Entry) Entry {
	e.PrevHash = GenesisHash
	if prev != nil {
		e.PrevHash = prev.Hash
	}
	e.Hash = ComputeHash(e)
	return e
}

// BrokenError names the first entry at which a chain does not verify.
type BrokenError struct {
	ID     int64
	Reason string
}

// Error implements error.
func (e *BrokenError) Error() string {
	return fmt.Sprintf("audit entry %d: %s", e.ID, e.Reason)
}

// Verify checks a whole chain given in id order. It returns nil when every
// entry links to the one before and its hash matches its content, otherwise
// a *BrokenError naming the first bad entry.
func Verify(entries []Entry) error {
	prevHash := GenesisHash
	var prevID int64
	for i, e := range entries {
		switch {
		case i > 0 && e.ID <= prevID:
			return &BrokenError{ID: e.ID, Reason: fmt.Sprintf("out of order after entry %d", prevID)}
		case e.PrevHash != prevHash:
			return &BrokenError{ID: e.ID, Reason: "does not link to the entry before it (an entry was removed, inserted or changed)"}
		case ComputeHash(e) != e.Hash:
			return &BrokenError{ID: e.ID, Reason: "content does not match its hash (the entry was changed)"}
		}
		prevHash, prevID = e.Hash, e.ID
	}
	return nil
}
