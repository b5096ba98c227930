module example.com/saxpy

go 1.26.8

require (
	github.com/gpusim/gpusim v0.0.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/uuid v1.1.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
	gorgonia.org/cu v0.9.6 // indirect
)

tool github.com/gpusim/gpusim/cmd/gpusim

replace github.com/gpusim/gpusim => ../..
