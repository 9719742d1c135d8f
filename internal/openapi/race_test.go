//go:build race

package openapi

// raceDetector is true when the test binary runs under -race.
const raceDetector = true
