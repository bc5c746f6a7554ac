#!/usr/bin/env python3
"""hpceval's ping-pong latency and streaming bandwidth beside OSU's osu_latency and osu_bw, with
hpceval's message buffers on transparent huge pages (its default) and on base pages (as OSU's),
in alternating rounds (thp, base, [osu-method,] OSU, thp, ...) so that a shared machine's drift hits
all three alike. Python only starts the programs and reads their output (peers_ab.py's helpers).

    python3 benchmarks/osu_pages_ab.py --osu DIR [--mpi openmpi|mpich] [--rounds 10]
        [--sizes 8,16K,1M,4M]

DIR holds osu_latency and osu_bw (OSU 7.4, c/mpi/pt2pt/standard) built outside the repository
with the MPI chosen (never committed); --mpi mpich runs build-mpich's binaries under
mpiexec.mpich. Prints per size the median over rounds of each and the ratios to OSU's. A fourth side for the
latency: hpceval's ping-pong with OSU's method (--method osu: base pages, osu_latency's
iteration counts, each round trip timed alone, the mean, as osu_latency prints)."""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers_ab  # noqa: E402  (the shared helpers: run, hpceval, table_value)

LAUNCH = peers_ab.LAUNCH
SIZES = {"8": 8, "16K": 16 << 10, "1M": 1 << 20, "4M": 4 << 20}


def _osu_method(binary: str, n: int, metric: str):
    """hpceval with OSU's method where it has one (pingpong --method osu: base pages, OSU 7.4's
    iteration counts, each round trip timed alone, the mean); else None."""
    if binary != "pingpong":
        return None
    warm, reps = (100, 10000) if n <= 8192 else (10, 1000)   # LAT_SKIP/LOOP_SMALL, _LARGE
    return peers_ab.hpceval(binary, ["--refine", "0", "--sizes", str(n), "--method", "osu",
                                     "--buffer-pages", "base", "--warmup", str(warm),
                                     "--max-reps", str(reps)], metric, stat="mean", bytes=n)


def sides(osu: Path, n: int):
    """quantity -> [(name, measure)]: hpceval thp, hpceval base, OSU, for one size."""
    budget = ["--budget", "0.5", "--sizes", str(n)]
    out = {}
    for quantity, binary, args, metric, peer in (
            ("ping-pong latency [us]", "pingpong", ["--refine", "0"], "latency", "osu_latency"),
            ("streaming bandwidth [MB/s]", "p2p", ["--modes", "stream", "--protocols", "isend",
                                                   "--window", "64"], "bandwidth", "osu_bw")):
        out[quantity] = [
            (pages, peers_ab.hpceval(binary, args + budget + ["--buffer-pages", pages], metric,
                                     bytes=n)) for pages in ("thp", "base")]
        out[quantity].append(("osu-method", _osu_method(binary, n, metric)))
        out[quantity].append(("OSU", peers_ab.table_value(
            peers_ab.MPIRUN + [str(osu / peer), "-m", f"{n}:{n}"], n)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--osu", required=True, type=Path, help="directory of osu_latency, osu_bw")
    ap.add_argument("--mpi", choices=sorted(LAUNCH), default="openmpi")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--sizes", default="8,16K,1M,4M", help="of " + ",".join(SIZES))
    a = ap.parse_args()
    peers_ab.MPIRUN, peers_ab.BIN = LAUNCH[a.mpi]
    print(f"{'size':>5} {'quantity':28s} {'thp':>10} {'base':>10} {'osu-method':>10} "
          f"{'OSU':>10} {'thp/OSU':>8} {'base/OSU':>8} {'method/OSU':>10}")
    for size in a.sizes.split(","):
        for quantity, sided in sides(a.osu, SIZES[size]).items():
            sided = [(name, m) for name, m in sided if m is not None]
            got = {name: [] for name, _ in sided}
            for _ in range(a.rounds):
                for name, measure in sided:
                    got[name].append(measure())
            med = {name: statistics.median(v) for name, v in got.items()}
            osu = med["OSU"]
            meth = med.get("osu-method")
            print(f"{size:>5} {quantity:28s} {med['thp']:10.4g} {med['base']:10.4g} "
                  f"{meth if meth else float('nan'):10.4g} {osu:10.4g} {med['thp'] / osu:8.3f} "
                  f"{med['base'] / osu:8.3f} {(meth or float('nan')) / osu:10.3f}", flush=True)


if __name__ == "__main__":
    main()
