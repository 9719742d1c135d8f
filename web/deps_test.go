package web

import (
	"os/exec"
	"strings"
	"testing"
)

// TestConsoleLinksNoRuntimeAPIListener: the runtime API is a package of
// its own (internal/runtimeapi), mounted through Deps.RuntimeAPI; the
// console does not link its fasthttp listener (two products, two
// packages, sharing internal/httperr).
func TestConsoleLinksNoRuntimeAPIListener(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "fasthttp") || strings.HasSuffix(dep, "/internal/runtimeapi") {
			t.Errorf("web depends on %s", dep)
		}
	}
}
