module github.com/gpusim/gpusim

go 1.26.8
