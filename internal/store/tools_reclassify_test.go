package store

import (
	"context"
	"testing"

	"github.com/toolgate/toolgate/internal/risk"
)

// TestReclassifyTools simulates tools stored by an older rule set: a read of
// a secret the old rules called READ (exposed), and a list the old rules
// called PRIVILEGED. New rules raise the first and suspend it, keep the
// second's class with its lower verdict, audit both, and do nothing the
// second time.
func TestReclassifyTools(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	mustImport(t, db, "swarm", testDoc(t, "https://swarm.example.com", []testOp{
		{"GET", "/swarm/unlockkey", "SwarmUnlockkey", "Get the unlock key", nil},
		{"GET", "/pets", "listPets", "List pets", nil},
	}))
	key, pets := mustTool(t, db, "SwarmUnlockkey"), mustTool(t, db, "listPets")
	if key.Class != risk.Privileged || pets.Class != risk.Read {
		t.Fatalf("imported classes %v, %v", key.Class, pets.Class)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	// What rules version 1 had stored.
	exec(`UPDATE tools SET rules_version = 1, detected_class = 'READ', class = 'READ' WHERE name = 'SwarmUnlockkey'`)
	exec(`UPDATE tool_policies SET exposed = 1 WHERE tool_id = ?`, key.ID)
	setJSONField(t, db, "tool_policies", "policy_json", "tool_id", key.ID, "exposed", true)
	exec(`UPDATE tools SET rules_version = 1, detected_class = 'PRIVILEGED', class = 'PRIVILEGED' WHERE name = 'listPets'`)

	res, err := db.ReclassifyTools(ctx, "system")
	if err != nil {
		t.Fatal(err)
	}
	if res != (ReclassifyResult{Checked: 2, Raised: 1, Suspended: 1, Lowered: 1}) {
		t.Fatalf("result %+v", res)
	}
	key, pets = mustTool(t, db, "SwarmUnlockkey"), mustTool(t, db, "listPets")
	if key.Class != risk.Privileged || key.Exposed || key.SuspendedReason == "" {
		t.Errorf("raised tool: class %v exposed %v suspended %q", key.Class, key.Exposed, key.SuspendedReason)
	}
	if pets.Class != risk.Privileged || pets.DetectedClass != risk.Read {
		t.Errorf("lower verdict: class %v detected %v, want PRIVILEGED kept with READ verdict", pets.Class, pets.DetectedClass)
	}
	for _, name := range []string{"tool:SwarmUnlockkey", "tool:listPets"} {
		if _, n, err := db.QueryAudit(ctx, AuditFilter{Subject: name, Action: "tool.reclassify"}); err != nil || n != 1 {
			t.Errorf("%s: %d reclassify audit entries (%v), want 1", name, n, err)
		}
	}
	if _, n, _ := db.QueryAudit(ctx, AuditFilter{Subject: "tool:SwarmUnlockkey", Action: "tool.suspend"}); n != 1 {
		t.Errorf("suspension not audited")
	}
	facts, err := db.Dashboard(ctx, DashboardQuery{})
	if err != nil || facts.LowerVerdicts != 1 {
		t.Errorf("dashboard lower verdicts %v (%v), want 1", facts, err)
	}
	again, err := db.ReclassifyTools(ctx, "system")
	if err != nil || again != (ReclassifyResult{}) {
		t.Errorf("second run %+v %v, want nothing to do", again, err)
	}
}
