#!/usr/bin/env bash
# cuda-sdk.sh fetches the two things cgo needs to build gorgonia.org/cu on a
# machine with no GPU and no CUDA toolkit: the driver API header cuda.h and
# the libcuda.so link stub. They come from Debian bookworm's non-free
# nvidia-cuda-dev package, downloaded (not installed) through a private apt
# configuration, and are unpacked into a cache directory outside the
# repository: nothing NVIDIA-licensed is ever committed.
#
# Usage: scripts/cuda-sdk.sh [--env]
#   GPUSIM_CUDA_SDK  cache directory (default ${XDG_CACHE_HOME:-~/.cache}/gpusim/cuda-sdk)
# Prints CGO_CFLAGS/CGO_LDFLAGS lines; with --env prints them as `export`
# statements for eval.
#
# At run time the binary links against the driver's real libcuda.so.1 on the
# GPU host; the stub only satisfies the linker here.
set -euo pipefail

SDK="${GPUSIM_CUDA_SDK:-${XDG_CACHE_HOME:-$HOME/.cache}/gpusim/cuda-sdk}"
INC="$SDK/include"
LIB="$SDK/lib"

emit() {
	local cflags="-I$INC" ldflags="-L$LIB"
	if [[ "${1:-}" == --env ]]; then
		printf 'export CGO_CFLAGS=%q\nexport CGO_LDFLAGS=%q\n' "$cflags" "$ldflags"
	else
		printf 'CGO_CFLAGS=%s\nCGO_LDFLAGS=%s\n' "$cflags" "$ldflags"
	fi
}

if [[ -f "$INC/cuda.h" && -f "$LIB/libcuda.so" ]]; then
	emit "${1:-}"
	exit 0
fi

APT="$SDK/apt"
mkdir -p "$APT/lists/partial" "$APT/archives/partial" "$INC" "$LIB"
cat >"$APT/sources.list" <<SRC
deb http://deb.debian.org/debian bookworm main contrib non-free
deb http://deb.debian.org/debian bookworm-updates main contrib non-free
SRC
opts=(
	-o "Dir::Etc::sourcelist=$APT/sources.list"
	-o "Dir::Etc::sourceparts=-"
	-o "Dir::State::Lists=$APT/lists"
	-o "Dir::Cache::archives=$APT/archives"
	-o "APT::Architecture=amd64"
	-o "APT::Architectures=amd64"
	-o "Debug::NoLocking=1"
)
apt-get "${opts[@]}" update >&2
(cd "$APT" && apt-get "${opts[@]}" download nvidia-cuda-dev >&2)
deb=$(ls "$APT"/nvidia-cuda-dev_*.deb | head -n1)
x="$APT/x"
rm -rf "$x"
mkdir -p "$x"
# The package is ~770 MB; unpack only the two files needed.
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$x" --wildcards '*/cuda.h' '*/libcuda.so*'

# cuda.h includes only <stdlib.h> and <stdint.h> (and cudaTypedefs-free
# sections); copy it alone.
h=$(find "$x" -name cuda.h -path '*include*' | head -n1)
[[ -n "$h" ]] || { echo "cuda-sdk: no cuda.h in $deb" >&2; exit 1; }
cp "$h" "$INC/cuda.h"
missing=$(grep -o '^#include *[<"][^>"]*[>"]' "$INC/cuda.h" | grep -v 'stdlib.h\|stdint.h\|stddef.h' || true)
[[ -z "$missing" ]] || echo "cuda-sdk: note: cuda.h also includes: $missing" >&2

stub=$(find "$x" -name 'libcuda.so' -path '*stubs*' | head -n1)
[[ -n "$stub" ]] || stub=$(find "$x" -name 'libcuda.so*' | head -n1)
[[ -n "$stub" ]] || { echo "cuda-sdk: no libcuda.so stub in $deb" >&2; exit 1; }
cp -L "$stub" "$LIB/libcuda.so"
basename "$deb" >"$SDK/SOURCE"
rm -rf "$x" "$deb"
emit "${1:-}"
