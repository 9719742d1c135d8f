package bundle

import (
	"testing"
	"time"
)

// BenchmarkBuildCanonicalSign5000 is publishing: build, canonical bytes and
// signature of a 5,000-tool bundle (aim < 200 ms).
func BenchmarkBuildCanonicalSign5000(b *testing.B) {
	in := largeInput(5000)
	k := testKey(b, 1)
	var size int
	for b.Loop() {
		bundle, err := Build(in)
		if err != nil {
			b.Fatal(err)
		}
		signed, err := Sign(bundle, k)
		if err != nil {
			b.Fatal(err)
		}
		size = len(signed)
	}
	b.ReportMetric(float64(size), "bytes/bundle")
}

// BenchmarkVerify5000 is what a runtime does on every new bundle (aim < 20 ms).
func BenchmarkVerify5000(b *testing.B) {
	k := testKey(b, 1)
	signed := mustSign(b, mustBuild(b, largeInput(5000)), k)
	keys := keySet(k)
	opts := VerifyOptions{Now: issued.Add(time.Hour)}
	for b.Loop() {
		if _, _, err := Verify(signed, keys, opts); err != nil {
			b.Fatal(err)
		}
	}
}
