//go:build race

package tpcc_test

// raceDetector: the tests are built with -race.
const raceDetector = true
