package cli

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// While the floor is held, the collector's goal stays above twice the
// floor however little else lives: the pace a console serving a tiny
// bundle collects at no longer depends on the bundle's size.
func TestHeapFloorRaisesGCGoal(t *testing.T) {
	goal := func() uint64 {
		runtime.GC()
		s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	const floor = 64 << 20 // far above this test binary's own heap
	if g := goal(); g >= 2*floor {
		t.Fatalf("goal %d before the floor: the test cannot tell", g)
	}
	release := holdHeapFloor(floor)
	if g := goal(); g < 2*floor {
		t.Errorf("goal %d with a %d-byte floor, want >= %d", g, floor, 2*floor)
	}
	release()
}
