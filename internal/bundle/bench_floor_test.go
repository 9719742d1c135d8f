package bundle

import (
	"bytes"
	"crypto/sha512"
	"encoding/base64"
	"testing"
	"time"

	segjson "github.com/segmentio/encoding/json"
)

// BenchmarkVerifyFloorRatio5000 puts Verify of the 5,000-tool bundle and
// its floor (BenchmarkVerify5000's floor/sha512 + floor/base64 +
// floor/unmarshal-segmentio: what any verifier of these bytes must do at
// least) in one loop, the order alternating every iteration, so that a
// shared machine's load weighs on both alike. It reports the mean of each
// and their ratio (goal ≤ 1.3), then the same for a swap (a one-tool
// change verified with a Memo) against the floor.
func BenchmarkVerifyFloorRatio5000(b *testing.B) {
	k := testKey(b, 1)
	signed := mustSign(b, mustBuild(b, largeInput(5000)), k)
	in := largeInput(5000)
	in.Tools[2500].Description += " (changed)"
	changed := [2][]byte{signed, mustSign(b, mustBuild(b, in), k)}
	keys := keySet(k)
	now := issued.Add(time.Hour)
	memo := &Memo{}
	if _, _, err := Verify(signed, keys, VerifyOptions{Now: now, Memo: memo}); err != nil {
		b.Fatal(err)
	}
	parts := bytes.Split(signed, []byte{'.'})
	input := signed[:len(parts[0])+1+len(parts[1])]
	dst := make([]byte, base64.RawURLEncoding.DecodedLen(len(parts[1])))
	floor := func() {
		sha512.Sum512(input)
		n, err := base64.RawURLEncoding.Decode(dst, parts[1])
		if err != nil {
			b.Fatal(err)
		}
		var v wireBundle
		if err := segjson.Unmarshal(dst[:n], &v); err != nil {
			b.Fatal(err)
		}
	}
	cold := func() {
		if _, _, err := Verify(signed, keys, VerifyOptions{Now: now}); err != nil {
			b.Fatal(err)
		}
	}
	swaps := 0
	swap := func() {
		swaps++
		if _, _, err := Verify(changed[swaps%2], keys, VerifyOptions{Now: now, Memo: memo}); err != nil {
			b.Fatal(err)
		}
	}
	var tFloor, tCold, tSwap time.Duration
	i := 0
	for b.Loop() {
		steps := []struct {
			run func()
			sum *time.Duration
		}{{floor, &tFloor}, {cold, &tCold}, {swap, &tSwap}}
		for j := range steps {
			s := steps[(i+j)%len(steps)]
			t0 := time.Now()
			s.run()
			*s.sum += time.Since(t0)
		}
		i++
	}
	b.ReportMetric(float64(tFloor.Microseconds())/float64(i)/1000, "floor-ms")
	b.ReportMetric(float64(tCold.Microseconds())/float64(i)/1000, "verify-ms")
	b.ReportMetric(float64(tSwap.Microseconds())/float64(i)/1000, "swap-ms")
	b.ReportMetric(float64(tCold)/float64(tFloor), "verify/floor")
	b.ReportMetric(float64(tSwap)/float64(tFloor), "swap/floor")
}
