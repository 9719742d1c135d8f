package bundle

import (
	"bytes"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A large bundle is read by several workers: it gives the bundle a reading
// in order gives, at every worker count, and a bundle with two bad tools is
// refused naming the first of them, whichever worker meets it first.
func TestParallelToolReadingIsOrderBlind(t *testing.T) {
	k := testKey(t, 1)
	keys := keySet(k)
	now := issued.Add(time.Hour)
	signed := mustSign(t, mustBuild(t, largeInput(1500)), k)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))

	runtime.GOMAXPROCS(1)
	want, payload, err := Verify(signed, keys, VerifyOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{2, 3, 4, 7} {
		runtime.GOMAXPROCS(procs)
		got, _, err := Verify(signed, keys, VerifyOptions{Now: now})
		if err != nil {
			t.Fatalf("GOMAXPROCS %d: %v", procs, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("GOMAXPROCS %d: the bundle differs from the one read in order", procs)
		}
	}

	// With a memo (the swap path) the workers only read it: a second
	// verification takes every tool from it.
	runtime.GOMAXPROCS(4)
	memo := &Memo{}
	for range 2 {
		got, _, err := Verify(signed, keys, VerifyOptions{Now: now, Memo: memo})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("with a memo: %v", err)
		}
	}

	// Make tools 1100 and 400 non-canonical (a space after the first
	// comma of each) and sign the result: the signature is good, the
	// bytes are not canonical.
	_, tools, err := splitTools(payload)
	if err != nil {
		t.Fatal(err)
	}
	bad := payload
	for _, i := range []int{1100, 400} {
		at := bytes.Index(bad, tools[i])
		if at < 0 {
			t.Fatalf("tool %d not found in the payload", i)
		}
		comma := at + bytes.IndexByte(tools[i], ',')
		bad = append(append(append([]byte{}, bad[:comma+1]...), ' '), bad[comma+1:]...)
	}
	resigned, err := signPayload(bad, k)
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 2, 4, 7} {
		runtime.GOMAXPROCS(procs)
		_, _, err := Verify(resigned, keys, VerifyOptions{Now: now})
		if err == nil || !strings.Contains(err.Error(), "tool 400:") {
			t.Errorf("GOMAXPROCS %d: %v, want tool 400 refused", procs, err)
		}
	}
}
