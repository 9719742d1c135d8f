package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
	"github.com/toolgate/toolgate/internal/testing/pgtest"
)

// `keys rotate` (and every other command, serve too) given another KEK file than the
// one the database's secrets are sealed with refuses with one sentence
// naming the file and the flag, and writes nothing: no key sealed under a
// second KEK, none advertised to runtimes, the same audit log; publishing
// with the right KEK still works and signs with the same key. On both
// engines.
func TestAnotherKEKIsRefusedBeforeWriting(t *testing.T) {
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) { anotherKEKIsRefusedBeforeWriting(t, engine) })
	}
}

func anotherKEKIsRefusedBeforeWriting(t *testing.T, engine store.Engine) {
	dir := t.TempDir()
	env := map[string]string{"TOOLGATE_DATA_DIR": dir, "TOOLGATE_KEK_FILE": writeTestKEK(t, 1)}
	where := config.DBPath(dir)
	if engine == store.Postgres {
		where = pgtest.NewDatabase(t)
		env["TOOLGATE_DATABASE_URL"] = where
	}
	db := storetest.Open(t, where)
	seedOneToolIn(t, db)
	kid, _, err := runCmd(t, env, "", "keys", "rotate")
	if err != nil {
		t.Fatal(err)
	}
	kid = strings.TrimSpace(kid)
	if _, _, err := runCmd(t, env, "", "publish"); err != nil {
		t.Fatal(err)
	}
	before := keysAndAudit(t, db)

	wrong := writeTestKEK(t, 2)
	bad := map[string]string{"TOOLGATE_KEK_FILE": wrong}
	for k, v := range env {
		if k != "TOOLGATE_KEK_FILE" {
			bad[k] = v
		}
	}
	for _, args := range [][]string{{"keys", "rotate"}, {"keys", "import"}, {"keys", "list"}, {"publish"}, {"serve", "--addr", "127.0.0.1:0"}} {
		_, _, err := runCmd(t, bad, "", args...)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if exitCode(err) != 2 || !strings.Contains(msg, wrong) || !strings.Contains(msg, "--key-encryption-key-file") ||
			!strings.Contains(msg, "not the one this database's secrets are sealed with") {
			t.Errorf("%v with another KEK: %v; want exit 2 naming the KEK file and flag", args, err)
		}
	}
	if after := keysAndAudit(t, db); after != before {
		t.Errorf("the refused commands changed the database:\nbefore %s\nafter  %s", before, after)
	}
	if _, _, err := runCmd(t, env, "", "publish"); err != nil {
		t.Fatalf("publish with the right KEK after the refusals: %v", err)
	}
	out, _, err := runCmd(t, env, "", "keys", "list")
	if err != nil || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, kid+"\t") || !strings.Contains(out, "\tactive") {
		t.Errorf("keys after the refusals: %q %v; want %s alone, active", out, err, kid)
	}
}

// keysAndAudit summarises what a refused command must not change: the
// signing keys and the length of the audit log.
func keysAndAudit(t *testing.T, db *store.DB) string {
	t.Helper()
	keys, err := db.SigningKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := db.AuditEntries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("keys %v, %d audit entries", keys, len(entries))
}
