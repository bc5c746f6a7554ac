#!/usr/bin/env python3
"""hpceval's ping-pong latency and streaming bandwidth beside OSU's osu_latency and osu_bw, with
hpceval's message buffers on transparent huge pages (its default) and on base pages (as OSU's),
in alternating rounds (thp, base, OSU, thp, base, OSU, ...) so that a shared machine's drift hits
all three alike. Python only starts the programs and reads their output (peers_ab.py's helpers).

    python3 benchmarks/osu_pages_ab.py --osu DIR [--mpi openmpi|mpich] [--rounds 10]
        [--sizes 8,16K,1M,4M]

DIR holds osu_latency and osu_bw (OSU 7.4, c/mpi/pt2pt/standard) built outside the repository
with the MPI chosen (never committed); --mpi mpich runs build-mpich's binaries under
mpiexec.mpich. Prints per size the median over rounds of each and the ratios to OSU's."""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers_ab  # noqa: E402  (the shared helpers: run, hpceval, table_value)

LAUNCH = {"openmpi": (["mpirun", "--allow-run-as-root", "--bind-to", "core", "-np", "2"],
                      peers_ab.ROOT / "build" / "bin"),
          "mpich": (["mpiexec.mpich", "-n", "2", "-bind-to", "core"],
                    peers_ab.ROOT / "build-mpich" / "bin")}
SIZES = {"8": 8, "16K": 16 << 10, "1M": 1 << 20, "4M": 4 << 20}


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
    print(f"{'size':>5} {'quantity':28s} {'thp':>10} {'base':>10} {'OSU':>10} "
          f"{'thp/OSU':>8} {'base/OSU':>8}")
    for size in a.sizes.split(","):
        for quantity, three in sides(a.osu, SIZES[size]).items():
            got = {name: [] for name, _ in three}
            for _ in range(a.rounds):
                for name, measure in three:
                    got[name].append(measure())
            med = {name: statistics.median(v) for name, v in got.items()}
            print(f"{size:>5} {quantity:28s} {med['thp']:10.4g} {med['base']:10.4g} "
                  f"{med['OSU']:10.4g} {med['thp'] / med['OSU']:8.3f} "
                  f"{med['base'] / med['OSU']:8.3f}", flush=True)


if __name__ == "__main__":
    main()
