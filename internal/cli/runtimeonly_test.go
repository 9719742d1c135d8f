package cli

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestRuntimeOnlyBuildLinksNoConsole guards `make build-runtime`: the
// runtime-only build (-tags runtimeonly) resolves (go list type-checks
// nothing; CI's make build-runtime compiles it), and links none of the
// console's packages or database drivers. A command file added without
// the build constraint, or a runtime file that reaches into the console,
// fails here rather than in a runtime's resident memory.
func TestRuntimeOnlyBuildLinksNoConsole(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-tags", "runtimeonly", "../../cmd/toolgate").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -tags runtimeonly: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, pkg := range []string{
		"github.com/toolgate/toolgate/internal/runtime",
		"github.com/toolgate/toolgate/internal/executor",
	} {
		if !slices.Contains(deps, pkg) {
			t.Errorf("the runtime-only build does not link %s", pkg)
		}
	}
	for _, prefix := range []string{
		"github.com/toolgate/toolgate/web", "github.com/toolgate/toolgate/views",
		"github.com/toolgate/toolgate/internal/store", "github.com/toolgate/toolgate/internal/importer",
		"github.com/toolgate/toolgate/internal/runtimeapi", "github.com/toolgate/toolgate/internal/keyring",
		"modernc.org/sqlite", "github.com/jackc/pgx", "github.com/labstack/echo",
	} {
		for _, d := range deps {
			if strings.HasPrefix(d, prefix) {
				t.Errorf("the runtime-only build links %s", d)
				break
			}
		}
	}
}
