"""Side-by-side benchmark of gpusim and Numba's CUDA simulator.

Run it through scripts/bench-numba.sh, which installs Debian's Numba,
builds the gpusim side and sets NUMBA_ENABLE_CUDASIM=1. By hand:

    go build -o /tmp/gpusim-bench ./bench/numba/gpusim
    NUMBA_ENABLE_CUDASIM=1 /usr/bin/python3 bench/numba/bench.py \
        --gpusim /tmp/gpusim-bench --rounds 5

Each round runs Numba's five kernels in this process and gpusim's in a
child process (detection on, then off), alternating which side goes
first. It prints a Markdown table to stdout, progress to stderr, and exits
non-zero if any result is wrong.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
    sys.exit("bench.py: set NUMBA_ENABLE_CUDASIM=1 (scripts/bench-numba.sh does)")

import numba  # noqa: E402
import numpy  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402


MODES = ("on", "on-cores", "off", "off-cores")  # gpusim's, as bench/numba/gpusim names them


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def numba_round(bs, target, max_launches):
    """Times every kernel: launches until target seconds are spent (at
    least one), returns {name: mean seconds per thread}."""
    out = {}
    for b in bs:
        total, k = 0.0, 0
        while k < 1 or (total < target and k < max_launches):
            total += b.timed()
            k += 1
        try:
            b.check()
        except kernels.CheckError as e:
            sys.exit(f"bench.py: FAIL: Numba {b.name}: wrong result: {e}")
        out[b.name] = (total / k / b.threads, k)
        log(f"  numba  {b.name:13s} {total / k / b.threads * 1e6:9.2f} µs/thread ({k} launches) {b.info}")
    return out


def gpusim_round(binary, extra):
    p = subprocess.run([binary, "-rounds", "1"] + extra, stdout=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit(f"bench.py: FAIL: gpusim side exited with {p.returncode}")
    d = json.loads(p.stdout)
    for r in d["results"]:
        log(f"  gpusim {r['name']:13s} on {r['ns_per_thread']['on'][0]:9.1f} ns/thread, "
            f"off {r['ns_per_thread']['off'][0]:9.1f} ns/thread")
    return d


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def fmt(x, digits):
    return f"{x:,.{digits}f}"


def ratio(x):
    return f"{x:,.0f}x" if x >= 100 else f"{x:.1f}x"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpusim", required=True, help="the built bench/numba/gpusim binary")
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("ROUNDS", "5")))
    ap.add_argument("--numba-target", type=float, default=0.5,
                    help="Numba: seconds of timed launches per kernel and round, at least one launch")
    ap.add_argument("--numba-max-launches", type=int, default=20)
    ap.add_argument("--gpusim-target", default="200ms",
                    help="gpusim: timed launches per kernel, mode and round (a Go duration)")
    args = ap.parse_args()
    if args.rounds < 1:
        sys.exit("bench.py: --rounds must be at least 1")

    bs = kernels.benches()
    log("warming Numba (one untimed launch per kernel)")
    for b in bs:
        b.timed()
        try:
            b.check()
        except kernels.CheckError as e:
            sys.exit(f"bench.py: FAIL: Numba {b.name}: wrong result: {e}")

    names = [b.name for b in bs]
    threads = {b.name: b.threads for b in bs}
    numba_s = {n: [] for n in names}
    gs = {m: {n: [] for n in names} for m in MODES}
    race, go_version, gomaxprocs = "", "", 0
    racy_values = []
    start = time.time()
    for r in range(args.rounds):
        order = ["numba", "gpusim"] if r % 2 == 0 else ["gpusim", "numba"]
        log(f"round {r + 1}/{args.rounds}: {order[0]} first")
        for side in order:
            if side == "numba":
                for n, (v, _) in numba_round(bs, args.numba_target, args.numba_max_launches).items():
                    numba_s[n].append(v)
                racy_values.append(bs[names.index("racy_add_one")].info)
            else:
                d = gpusim_round(args.gpusim, ["-target", args.gpusim_target])
                go_version, gomaxprocs = d["go_version"], d["gomaxprocs"]
                for res in d["results"]:
                    for m in MODES:
                        gs[m][res["name"]].extend(res["ns_per_thread"][m])
                    if res.get("race_report"):
                        race = res["race_report"]
    elapsed = time.time() - start

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print("## gpusim vs Numba's CUDA simulator")
    print()
    print(f"- date: {now}")
    print(f"- machine: `{platform.machine()}`, {cpu_model()}, {os.cpu_count()} cores")
    print(f"- Numba {numba.__version__} (NUMBA_ENABLE_CUDASIM=1), NumPy {numpy.__version__}, "
          f"Python {platform.python_version()} ({sys.executable})")
    print(f"- gpusim built with {go_version}, GOMAXPROCS={gomaxprocs} (default); \"on\" and \"off\": one worker "
          f"(the default); \"every core\": Options.WithWorkers(0), with detection on its speculative epochs "
          f"(sim/speculate.go)")
    rounds = f"{args.rounds} interleaved round" + ("s" if args.rounds != 1 else "")
    print(f"- {rounds} ({elapsed:.0f} s, Numba and gpusim alternating which goes first); launches only, warm; "
          f"min and median over rounds of each round's mean time per simulated thread")
    print()
    print("| kernel | threads | Numba µs/thread (min / med) "
          "| gpusim ns/thread, detect on / on, every core / off / off, every core (medians) "
          "| Numba / gpusim on (min / med) | Numba / gpusim on, every core (min / med) "
          "| Numba / gpusim off (min / med) | Numba / gpusim off, every core (min / med) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in names:
        nb = [v * 1e9 for v in numba_s[n]]  # ns per thread
        nmin, nmed = min(nb), statistics.median(nb)
        cells = []
        for m in MODES:
            g = gs[m][n]
            cells.append(f"{ratio(nmin / min(g))} / {ratio(nmed / statistics.median(g))}")
        meds = " / ".join(fmt(statistics.median(gs[m][n]), 1) for m in MODES)
        print(f"| {n} | {threads[n]:,} | {fmt(nmin / 1e3, 1)} / {fmt(nmed / 1e3, 1)} | {meds} | "
              + " | ".join(cells) + " |")
    print()
    print("Results checked on both sides every round (vector add, reduction sum and "
          "histogram counts exactly, matmul against a float64 CPU reference).")
    print(f"racy_add_one: Numba's simulator reports nothing ({', '.join(sorted(set(racy_values)))} "
          f"after a launch of 160 threads); gpusim with detection on reports:")
    print()
    print("```")
    print(race)
    print("```")


if __name__ == "__main__":
    main()
