//go:build cuda

package parity

import "github.com/gpusim/gpusim/cuda"

func openDevice() (*cuda.Device, error) { return cuda.Open(cuda.Config{}) }
