#!/usr/bin/env bash
# build-parity.sh builds the GPU binaries on a machine that needs no GPU or
# CUDA toolkit: cuda.h and the libcuda.so link stub come from
# scripts/cuda-sdk.sh (cached outside the repository). The binaries go to
# .devbin/ (git-ignored) and run on the GPU host, where the driver's own
# libcuda.so.1 is loaded:
#
#   cd parity && GPUSIM_PARITY_REPORT=../PARITY.md ../.devbin/parity.test -test.v
#   PATH=/usr/local/cuda/bin:$PATH .devbin/gpusim sweep vector_add -gpu
#
# .devbin/gpusim is the CLI with the CUDA backend (-tags cuda). It starts
# only where the driver is installed: gorgonia.org/cu's package init calls
# cuInit and exits the process if that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/cuda-sdk.sh --env)"
export CGO_ENABLED=1 GOOS=linux GOARCH=amd64
mkdir -p .devbin
go vet -tags cuda ./cuda ./parity ./internal/cli ./cmd/gpusim
go test -c -tags cuda -o .devbin/parity.test ./parity/
go build -tags cuda -o .devbin/gpusim ./cmd/gpusim
echo "built .devbin/parity.test and .devbin/gpusim" >&2
