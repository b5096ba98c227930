//go:build race

package sim

// raceDetector is set when the simulator is built with the Go race
// detector: detection then runs on one worker (speculate.go).
const raceDetector = true

// raceShift is 1 in race builds, 0 otherwise: for bounds that the race
// detector's cost scales down.
const raceShift = 1
