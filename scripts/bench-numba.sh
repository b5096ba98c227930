#!/usr/bin/env bash
# bench-numba.sh: gpusim against Numba's CUDA simulator, five kernels, side by
# side (bench/numba/README.md). Prints a Markdown table to stdout, progress
# to stderr; exits non-zero if any result is wrong.
#
#   scripts/bench-numba.sh            # 5 rounds
#   ROUNDS=3 scripts/bench-numba.sh   # or: scripts/bench-numba.sh --rounds 3
#
# Further arguments go to bench/numba/bench.py (--numba-target,
# --numba-max-launches, --gpusim-target). Uses Debian's /usr/bin/python3 and
# python3-numba, which it installs with apt-get if missing (run as root, or
# install it first).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=/usr/bin/python3
if ! "$PY" -c 'import numba' 2>/dev/null; then
	echo "installing python3-numba (Debian)" >&2
	if [ "$(id -u)" -ne 0 ]; then
		echo "bench-numba.sh: python3-numba is missing; run as root or: sudo apt-get install -y python3-numba" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y python3-numba >&2 || { apt-get update >&2 && apt-get install -y python3-numba >&2; }
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/gpusim-bench" ./bench/numba/gpusim

NUMBA_ENABLE_CUDASIM=1 "$PY" bench/numba/bench.py --gpusim "$bin/gpusim-bench" "$@"
