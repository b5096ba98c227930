// Test module for the gpusim analyzer: its packages import the real sim
// package through the replace directive below.
module vettest

go 1.26.8

require github.com/gpusim/gpusim v0.0.0

replace github.com/gpusim/gpusim => ../../..
