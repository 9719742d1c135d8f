package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolgate/toolgate/internal/config"
)

// Modes of the data directory and of the files in it that hold secrets or
// the whole project (the database, its WAL and shared-memory files, the
// session cookie keys). The keys/ directory enforces its own (bundle.KeyDir).
const (
	dataDirMode  fs.FileMode = 0o700
	dataFileMode fs.FileMode = 0o600
)

// permFix is one mode secureDataDir tightened.
type permFix struct {
	Path     string
	Was, Now fs.FileMode
}

// secureDataDir makes dataDir private before anything is opened in it:
// the directory is created 0700 or tightened to it, the database file is
// created 0600 when missing and sqlite is true (SQLite gives its -wal and
// -shm files the database file's mode; with --database-url there is no
// file), and the files that exist are tightened to 0600. It returns what
// it had to tighten, so the caller can say so.
func secureDataDir(dataDir string, sqlite bool) ([]permFix, error) {
	if err := os.MkdirAll(dataDir, dataDirMode); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	var fixes []permFix
	tighten := func(path string, want fs.FileMode) error {
		st, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if got := st.Mode().Perm(); got&^want != 0 {
			if err := os.Chmod(path, want); err != nil {
				return err
			}
			fixes = append(fixes, permFix{Path: path, Was: got, Now: want})
		}
		return nil
	}
	if err := tighten(dataDir, dataDirMode); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	db := config.DBPath(dataDir)
	if sqlite {
		f, err := os.OpenFile(db, os.O_RDWR|os.O_CREATE, dataFileMode)
		if err != nil {
			return nil, fmt.Errorf("database file: %w", err)
		}
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("database file: %w", err)
		}
	}
	for _, p := range []string{db, db + "-wal", db + "-shm", filepath.Join(dataDir, "session.keys")} {
		if err := tighten(p, dataFileMode); err != nil {
			return nil, fmt.Errorf("data file: %w", err)
		}
	}
	return fixes, nil
}
