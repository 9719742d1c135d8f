// Package corpus finds the real-world corpus (OpenAPI fixtures and risk
// labels) that lives outside the repository, in ../shared beside the
// checkout, and decides what a test does when it is not there.
//
// The corpus is a test tier: it runs wherever it is present and is
// required only where TOOLGATE_REQUIRE_CORPUS=1 (CI sets it in .ci/run).
// In a clone without it a test skips with one line saying so, and
// `make test` says once that the tier did not run and how to get it.
package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RequireEnv is the environment variable that turns a missing corpus from a
// skip into a failure.
const RequireEnv = "TOOLGATE_REQUIRE_CORPUS"

// DirEnv names a folder laid out as ../shared (fixtures/, labels/) to read
// the corpus from instead of looking beside the checkout.
const DirEnv = "TOOLGATE_CORPUS"

// Missing ends tb because the corpus is absent: tb.Fatalf when RequireEnv
// is "1", tb.Skipf otherwise. format and args say where it was looked for.
// The message starts with "corpus tier not run", which `make test` looks
// for to say so once.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	const prefix = "corpus tier not run: "
	if os.Getenv(RequireEnv) == "1" {
		tb.Fatalf(prefix+format+" ("+RequireEnv+"=1: the corpus is required)", args...)
		return
	}
	tb.Skipf(prefix+format+" (set "+RequireEnv+"=1 to make this a failure)", args...)
}

// Find returns the path of rel (e.g. "fixtures/openapi" or
// "labels/dev-risk-labels.tsv") inside the corpus: under $TOOLGATE_CORPUS
// when it is set, otherwise in a folder named shared beside the module
// root or beside one of its parents (a git worktree sits a level deeper
// than the main checkout).
func Find(rel string) (string, error) {
	if dir := os.Getenv(DirEnv); dir != "" {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s not in %s=%s: %w", rel, DirEnv, dir, err)
		}
		return p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", fmt.Errorf("%s not found in ../shared beside %s or above (set %s=DIR to point at a copy)", rel, root, DirEnv)
}

// Path is Find for tests: a missing corpus ends tb through Missing.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p, err := Find(rel)
	if err != nil {
		Missing(tb, "%v", err)
	}
	return p
}

// moduleRoot is the folder holding go.mod, found from this file's place in
// the module (internal/testing/corpus), so it does not depend on the working
// directory of the test binary.
func moduleRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("corpus: cannot tell where the module is")
	}
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("corpus: no go.mod above %s", file)
		}
		dir = parent
	}
}
