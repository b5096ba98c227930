//go:build !race

package sim

// raceDetector: see racedetector_on.go.
const raceDetector = false

// raceShift is 1 in race builds, 0 otherwise: for bounds that the race
// detector's cost scales down.
const raceShift = 0
