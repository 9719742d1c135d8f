package importer

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/risk"
)

func TestReclassify(t *testing.T) {
	// GET /swarm/unlockkey reads a secret: PRIVILEGED under the current
	// rules; GET /pets reads: READ.
	secret := openapi.Operation{Method: "GET", Path: "/swarm/unlockkey", PathKey: "/swarm/unlockkey", OperationID: "SwarmUnlockkey"}
	plain := openapi.Operation{Method: "GET", Path: "/pets", PathKey: "/pets", OperationID: "listPets"}
	tests := []struct {
		name         string
		s            Stored
		class        risk.Class
		keep         bool
		lowered      bool
		suspend      bool
		changedClass bool
	}{
		{"raised and exposed: suspended", Stored{Name: "a", Op: secret, DetectedClass: risk.Read, Class: risk.Read, Exposed: true},
			risk.Privileged, false, false, true, true},
		{"raised, not exposed", Stored{Name: "b", Op: secret, DetectedClass: risk.Read, Class: risk.Read},
			risk.Privileged, false, false, false, true},
		{"raised, removed tool is not suspended", Stored{Name: "c", Op: secret, DetectedClass: risk.Read, Class: risk.Read, Exposed: true, Removed: true},
			risk.Privileged, false, false, false, true},
		{"lower verdict keeps the class", Stored{Name: "d", Op: plain, DetectedClass: risk.Privileged, Class: risk.Privileged, Exposed: true},
			risk.Privileged, false, true, false, false},
		{"admin raise above the new verdict survives", Stored{Name: "e", Op: secret, DetectedClass: risk.Read, Class: risk.Privileged, Overridden: true},
			risk.Privileged, true, false, false, false},
		{"approved lowering voided by a raise", Stored{Name: "f", Op: secret, DetectedClass: risk.Destructive, Class: risk.Write, Overridden: true, Exposed: true},
			risk.Privileged, false, false, true, true},
		{"same verdict: nothing changes", Stored{Name: "g", Op: plain, DetectedClass: risk.Read, Class: risk.Write, Overridden: true},
			risk.Write, true, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Reclassify([]Stored{tt.s})[0]
			if r.Class != tt.class || r.KeepOverride != tt.keep || r.Lowered != tt.lowered || (r.Suspend != "") != tt.suspend {
				t.Errorf("got class %v keep %v lowered %v suspend %q; want %v %v %v %v",
					r.Class, r.KeepOverride, r.Lowered, r.Suspend, tt.class, tt.keep, tt.lowered, tt.suspend)
			}
			if (r.Class != tt.s.Class) != tt.changedClass {
				t.Errorf("class %v → %v, want changed=%v", tt.s.Class, r.Class, tt.changedClass)
			}
			if tt.suspend && !strings.Contains(r.Suspend, "risk rules changed") {
				t.Errorf("suspend reason %q does not say why", r.Suspend)
			}
		})
	}
}
