package store

import (
	"context"
	"fmt"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/toolgate/toolgate/migrations"
)

// migrator is goose over the engine's migrations (migrations.ForEngine).
// On PostgreSQL it runs on the plain pool (goose writes its own $n SQL and
// a real boolean) and takes goose's session advisory lock, so console
// instances starting together migrate one after the other.
func (db *DB) migrator() (*goose.Provider, error) {
	var (
		p   *goose.Provider
		err error
	)
	switch db.engine {
	case Postgres:
		locker, lerr := lock.NewPostgresSessionLocker()
		if lerr != nil {
			return nil, fmt.Errorf("load migrations: %w", lerr)
		}
		p, err = goose.NewProvider(goose.DialectPostgres, db.migrations, migrations.ForEngine(string(Postgres)),
			goose.WithSessionLocker(locker))
	default:
		p, err = goose.NewProvider(goose.DialectSQLite3, db.db.DB, migrations.ForEngine(string(SQLite)))
	}
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	return p, nil
}

// Migrate applies every pending migration, each once and in its own
// transaction, and returns the versions it applied.
func (db *DB) Migrate(ctx context.Context) ([]int64, error) {
	p, err := db.migrator()
	if err != nil {
		return nil, err
	}
	results, err := p.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	applied := make([]int64, 0, len(results))
	for _, r := range results {
		applied = append(applied, r.Source.Version)
	}
	return applied, nil
}

// MigrationsCurrent returns nil when every embedded migration is applied,
// and an error naming the versions otherwise (for /readyz).
func (db *DB) MigrationsCurrent(ctx context.Context) error {
	p, err := db.migrator()
	if err != nil {
		return err
	}
	current, target, err := p.GetVersions(ctx)
	if err != nil {
		return fmt.Errorf("migration status: %w", err)
	}
	if current != target {
		return fmt.Errorf("migration status: database at version %d, binary expects %d", current, target)
	}
	return nil
}

// Initialized reports whether migrations have ever run on the database
// (goose's version table exists), reading the catalogue only: commands
// other than serve and migrate refuse a database that is not.
func (db *DB) Initialized(ctx context.Context) (bool, error) {
	q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'goose_db_version'`
	if db.engine == Postgres {
		q = `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'goose_db_version'`
	}
	var n int
	if err := db.db.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return false, fmt.Errorf("database schema: %w", err)
	}
	return n > 0, nil
}
