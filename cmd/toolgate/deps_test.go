package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoTestCode: the console and runtime binary links neither
// the testing package (nor testing/...) nor any of the project's test
// support (internal/testing/..., and packages named like storetest or
// pgtest), so no fixture, database opener or audit tampering ships in it.
func TestBinaryLinksNoTestCode(t *testing.T) {
	goCmd, err := exec.LookPath("go") // go test puts its own GOROOT/bin first on PATH
	if err != nil {
		t.Fatalf("the go command is needed to list the binary's packages: %v", err)
	}
	out, err := exec.Command(goCmd, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps listed %d packages; want the whole binary", len(deps))
	}
	for _, dep := range deps {
		if testSupport(dep) {
			t.Errorf("the binary links %s", dep)
		}
	}
}

const module = "github.com/toolgate/toolgate/"

// testSupport reports whether the import path p is test code: the
// standard library's testing packages, or a package of this module under
// internal/testing or with an element named *test.
func testSupport(p string) bool {
	if p == "testing" || strings.HasPrefix(p, "testing/") {
		return true
	}
	rel, ok := strings.CutPrefix(p, module)
	if !ok {
		return false
	}
	if strings.HasPrefix(rel, "internal/testing/") {
		return true
	}
	for elem := range strings.SplitSeq(rel, "/") {
		if strings.HasSuffix(elem, "test") {
			return true
		}
	}
	return false
}
