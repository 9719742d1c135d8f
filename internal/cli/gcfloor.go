package cli

import "runtime"

// gcHeapFloor is the heap the console's garbage collector paces itself
// from at the least. The collector's next goal is twice the live heap, and
// a console serving a small bundle lives on 1–2 MB: under a fleet's polls
// (net/http allocates ~1.5 KB per request, whatever the handler does) it
// collected 96 times in 6 s of wrk load against 26 for a console holding a
// 5 MB bundle, and a 304 cost ~7 % more CPU with the small bundle than with
// the large one (make bench-bundle-api, README "Bundle API under load"). With the floor both
// collect alike (16 and 10 times), so the 304 path's cost no longer
// depends on the bundle's size. The block is never written, so it is
// address space, not resident memory (idle RSS moves by ~1 MB), and it
// holds no pointers, so marking it costs nothing; what it costs is that
// garbage may grow to ~2× the floor before a collection under load.
const gcHeapFloor = 16 << 20

// holdHeapFloor allocates the floor and returns the function that keeps it
// alive: defer it for as long as the process serves.
func holdHeapFloor(n int) (release func()) {
	floor := make([]byte, n)
	return func() { runtime.KeepAlive(floor) }
}
