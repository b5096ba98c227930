#!/bin/sh
# Peak memory and first-launch cost of detection (issue 17's memory
# targets): a float32 vector add of 10M and 100M elements, detection on,
# under /usr/bin/time -v. Prints, per size, the buffers' bytes, the peak RSS
# and its ratio to them, the limit 5 x buffers + 64 MiB, and the first
# launch's time over the warm launch's.
#
#   scripts/bench-shadow.sh [sizes...]     (default: 10000000 100000000)
set -eu
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/shadow
go build -o "$bin" ./bench/shadow
sizes=${*:-10000000 100000000}
echo "# $(date -u +%Y-%m-%d) $(uname -m) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') x$(nproc), $(go version | cut -d' ' -f3)"
echo "| elements | buffers | peak RSS | RSS / buffers | limit (5x + 64 MiB) | within | first launch | warm launch | first / warm |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for n in $sizes; do
	out=$( { /usr/bin/time -v "$bin" -n "$n" >"$bin.json"; } 2>&1 )
	rss_kb=$(echo "$out" | awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}')
	python3 - "$bin.json" "$rss_kb" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rss = int(sys.argv[2]) * 1024
buf = r["buffer_bytes"]
limit = 5 * buf + 64 * 2**20
mb = lambda x: "%.0f MB" % (x / 1e6)
print("| %d | %s | %s | %.2fx | %s | %s | %.2f s | %.2f s | %.2fx |" % (
    r["n"], mb(buf), mb(rss), rss / buf, mb(limit), "yes" if rss <= limit else "NO",
    r["first_launch_s"], r["warm_launch_s"], r["first_over_warm"]))
PY
done
