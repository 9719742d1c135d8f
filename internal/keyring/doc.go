// Package keyring keeps the console's secrets where every console instance
// can use them: the bundle signing keys and the session cookie keys.
//
// Two places, one interface (Keyring):
//
//   - Files: the signing keys in the data directory (bundle.KeyDir), as a
//     single console on SQLite has always kept them. The default there.
//   - Database: the signing keys in the signing_keys table, their private
//     halves sealed under a key-encryption key (KEK). Required when the
//     database is shared by several consoles (PostgreSQL), optional on
//     SQLite (`serve --key-encryption-key-file`).
//
// # Sealing
//
// A private key is sealed with AES-256-GCM under the 32-byte KEK, a fresh
// random 96-bit nonce per seal, and associated data naming what is sealed
// ("toolgate signing key " + kid; "toolgate console secret " + name), so a
// sealed value moved to another row does not open. Stored form, in a TEXT
// column: "v1." + base64url(nonce || ciphertext || tag). The KEK is read
// from a file every console is given (--key-encryption-key-file,
// TOOLGATE_KEK_FILE): 32 random bytes, raw or base64, readable by its owner
// only; it is never written to the database, the audit log or a log line.
//
// # KEK check
//
// console_secrets holds "kek.check", a known value sealed under the KEK
// the first time a KEK opens the database (CheckKEK); a database from
// before it gets one at the first open whose KEK opens every sealed value
// already there. Every command and console opening the database with a
// KEK checks it first and refuses another KEK (ErrWrongKEK) before
// writing anything, so a key sealed under a second KEK never lands next
// to the first's.
//
// # Threat model
//
// A database dump alone (a backup, a replica, a support bundle) cannot sign
// a bundle: it holds only sealed private keys. The KEK file alone cannot
// sign either: it holds no key. Signing needs both, which is what a running
// console has. Whoever holds both can sign; keep the KEK out of database
// backups and rotate signing keys (`toolgate keys rotate`) if either leaks
// with the other. Changing the KEK itself means re-sealing (import the keys
// into a fresh database with the new KEK); it is not automated.
//
// # Several consoles
//
// The active key is read from the database at every publish, never cached,
// so a rotation on one console is used by every other at its next publish
// and all of them sign with the same active key. Creating the first key,
// rotating and retiring are each one write transaction with their audit
// entry. Session cookie keys are created once (the first console to start
// wins, ConsoleSecret) and read by every console at start, so a session
// cookie made by one console is accepted by the others.
package keyring
