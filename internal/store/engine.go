package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Engine names the database engine behind a DB.
type Engine string

// The engines the store runs on.
const (
	// SQLite is the zero-configuration default: a file in the data directory.
	SQLite Engine = "sqlite"
	// Postgres is PostgreSQL, for deployments with several console instances.
	Postgres Engine = "postgres"
)

// Engine reports which engine db runs on.
func (db *DB) Engine() Engine { return db.engine }

// IsPostgresURL reports whether rawURL names a PostgreSQL database
// (postgres:// or postgresql://).
func IsPostgresURL(rawURL string) bool {
	s := strings.ToLower(rawURL)
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// OpenURL opens the database a --database-url names. Only PostgreSQL URLs
// are accepted (the SQLite database is a file in the data directory: Open);
// the error for anything else names the URL with its password redacted.
func OpenURL(ctx context.Context, rawURL string) (*DB, error) {
	if !IsPostgresURL(rawURL) {
		return nil, fmt.Errorf("open database %s: the database URL must start with postgres:// or postgresql://", RedactURL(rawURL))
	}
	return openPostgres(ctx, rawURL)
}

// RedactURL returns rawURL with its password replaced by "xxxxx" (also a
// password=… query parameter), for logs and error messages. Text that does
// not parse as a URL is replaced whole.
func RedactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable database URL)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// redactErr removes the URL's password from an error's text (pgx quotes
// parts of the connection string in some of its errors).
func redactErr(err error, rawURL string) error {
	u, perr := url.Parse(rawURL)
	if perr != nil {
		return errors.New("the database URL does not parse")
	}
	secrets := []string{u.Query().Get("password")}
	if p, ok := u.User.Password(); ok {
		secrets = append(secrets, p, url.QueryEscape(p), url.PathEscape(p))
	}
	msg := err.Error()
	for _, s := range secrets {
		if s != "" && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}
