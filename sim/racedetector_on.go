//go:build race

package sim

// raceDetector is set when the simulator is built with the Go race
// detector: detection then runs on one worker (speculate.go).
const raceDetector = true
