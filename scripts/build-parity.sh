#!/usr/bin/env bash
# build-parity.sh builds the GPU parity test binaries on a machine that needs
# no GPU or CUDA toolkit: cuda.h and the libcuda.so link stub come from
# scripts/cuda-sdk.sh (cached outside the repository). The binaries go to
# .devbin/ (git-ignored) and run on the GPU host, where the driver's own
# libcuda.so.1 is loaded:
#
#   cd parity && GPUSIM_PARITY_REPORT=../PARITY.md ../.devbin/parity.test -test.v
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/cuda-sdk.sh --env)"
export CGO_ENABLED=1 GOOS=linux GOARCH=amd64
mkdir -p .devbin
go vet -tags cuda ./cuda ./parity
go test -c -tags cuda -o .devbin/parity.test ./parity/
echo "built .devbin/parity.test" >&2
