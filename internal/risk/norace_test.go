//go:build !race

package risk

// raceDetector is true when the test binary runs under -race.
const raceDetector = false
