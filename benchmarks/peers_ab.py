#!/usr/bin/env python3
"""hpceval beside the standalone tools, in alternating rounds (A, B, A, B, ...) so that a
shared machine's drift hits both alike. Python only starts the programs and reads their output;
every timed loop is the tools' own C.

    python3 benchmarks/peers_ab.py --peers DIR [--rounds 5] [--only NAME ...]

DIR holds the peers, built outside the repository (never committed):
    DIR/osu-inst/libexec/osu-micro-benchmarks/mpi/{pt2pt,collective}/   OSU 7.4
    DIR/stream/stream_c        STREAM 5.10, gcc -O3 -march=native -fopenmp, -DSTREAM_ARRAY_SIZE=N
    DIR/multichase/multichase  google/multichase
    DIR/lmbench/bin/*/lat_mem_rd
Prints, per comparison, the median over rounds of each side's figure and hpceval / peer."""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("HPCEVAL_BINDIR", ROOT / "build" / "bin"))
MPIRUN = ["mpirun", "--allow-run-as-root", "--bind-to", "core", "-np", "2"]
# --mpi of the OSU scripts: the launch of 2 ranks bound to cores, and hpceval's binaries
LAUNCH = {"openmpi": (MPIRUN, ROOT / "build" / "bin"),
          "mpich": (["mpiexec.mpich", "-n", "2", "-bind-to", "core"],
                    ROOT / "build-mpich" / "bin")}


def run(cmd: List[str], env: Dict[str, str] | None = None) -> str:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                       env={**os.environ, **(env or {})})
    if p.returncode != 0:
        sys.exit(f"peers_ab: {' '.join(cmd)} failed: {p.stderr.strip()[-300:]}")
    return p.stdout + p.stderr


def results(text: str) -> List[dict]:
    """hpceval's result records in a program's output."""
    return [r for r in (json.loads(l) for l in text.splitlines() if l.startswith("{"))
            if r.get("type") == "result"]


def pick(recs: List[dict], metric: str, stat: str = "median", **params) -> float:
    """The statistic of the record of `metric` whose params include `params`."""
    for r in recs:
        if r["metric"] == metric and all(r["params"].get(k) == v for k, v in params.items()):
            return r["stats"][stat]
    sys.exit(f"peers_ab: no {metric} {params} in hpceval's records")


def hpceval_cmd(binary: str, args: List[str]) -> List[str]:
    """hpceval's binary under the current MPI launch (MPIRUN, BIN)."""
    return MPIRUN + [str(BIN / f"hpceval-{binary}")] + args


def hpceval(binary: str, args: List[str], metric: str, stat: str = "median", mpi: bool = True,
            env: Dict[str, str] | None = None, cpus: str = "0", **params) -> Callable[[], float]:
    def measure() -> float:
        cmd = (hpceval_cmd(binary, args) if mpi else
               ["taskset", "-c", cpus, str(BIN / f"hpceval-{binary}")] + args)
        return pick(results(run(cmd, env)), metric, stat, **params)
    return measure


def table_rows(text: str) -> Dict[int, List[float]]:
    """OSU-style output: size -> the numbers after it on the first line that starts with that
    size (up to the first word that is not a number, such as a validation's "Pass")."""
    rows: Dict[int, List[float]] = {}
    for line in text.splitlines():
        f = line.split()
        if not f or not f[0].isdigit() or int(f[0]) in rows:
            continue
        nums = []
        for x in f[1:]:
            try:
                nums.append(float(x))
            except ValueError:
                break
        rows[int(f[0])] = nums
    return rows


def print_ab(mine: Dict[str, List[float]], theirs: Dict[str, List[float]], peer: str,
             tag: str, markdown: bool, width: int = 44) -> None:
    """Per quantity: the medians over the rounds of hpceval's and the peer's figures, their
    ratio, the median of the rounds' own ratios and every round's figures; with `markdown`, the
    rows again as a table's (first column `tag`: the MPI)."""
    ratio = lambda x, y: x / y if y else float("nan")
    print(f"{'quantity':{width}s} {'hpceval':>10} {peer:>10} {'hp/' + peer:>7} {'paired':>7}  "
          f"rounds hpceval | {peer}")
    rows = []
    for q, vs in mine.items():
        ts = theirs.get(q, [])
        m, t = statistics.median(vs), statistics.median(ts) if ts else float("nan")
        rows.append((q, m, t, ratio(m, t),
                     statistics.median([ratio(x, y) for x, y in zip(vs, ts)] or [float("nan")])))
        print(f"{q:{width}s} {m:10.4g} {t:10.4g} {rows[-1][3]:7.3f} {rows[-1][4]:7.3f}  "
              f"{' '.join(f'{x:.4g}' for x in vs)} | {' '.join(f'{x:.4g}' for x in ts)}",
              flush=True)
    for q, m, t, r, paired in rows if markdown else ():
        print(f"| {tag} | {q} | {m:.4g} | {t:.4g} | {r:.3f} | {paired:.3f} |")


def table_value(cmd: List[str], size: int, col: int = 1, env=None) -> Callable[[], float]:
    """OSU-style output: the column of the row whose first number is `size`."""
    def measure() -> float:
        row = table_rows(run(cmd, env)).get(size, [])
        if len(row) < col:
            sys.exit(f"peers_ab: no row {size} from {cmd[-1]}")
        return row[col - 1]
    return measure


def comparisons(peers: Path, lat_mb: int = 256) -> Dict[str, Tuple[str, Callable, Callable, Callable]]:
    """name -> (unit, hpceval, peer, convert peer figure to hpceval's quantity)."""
    osu = peers / "osu-inst/libexec/osu-micro-benchmarks/mpi"
    lat = glob.glob(str(peers / "lmbench/bin/*/lat_mem_rd"))
    n = 10_000_000
    stream_env = lambda t: {"OMP_NUM_THREADS": str(t), "OMP_PROC_BIND": "close",
                            "OMP_PLACES": "cores"}
    ident = lambda v: v
    out = {
        "pingpong 8 B latency [us]": (
            "us", hpceval("pingpong", ["--sizes", "8", "--refine", "0", "--budget", "0.5"],
                          "latency", bytes=8),
            table_value(MPIRUN + [str(osu / "pt2pt/osu_latency"), "-m", "8:8"], 8), ident),
        "pingpong 1 MiB bandwidth [MB/s]": (
            "MB/s", hpceval("pingpong", ["--sizes", "1M", "--refine", "0", "--budget", "0.5"],
                            "bandwidth", bytes=1 << 20),
            table_value(MPIRUN + [str(osu / "pt2pt/osu_latency"), "-m", "1048576:1048576"],
                        1 << 20), lambda us: (1 << 20) / us),
        "pingpong 4 MiB bandwidth [MB/s]": (
            "MB/s", hpceval("pingpong", ["--sizes", "4M", "--refine", "0", "--budget", "0.5"],
                            "bandwidth", bytes=4 << 20),
            table_value(MPIRUN + [str(osu / "pt2pt/osu_latency"), "-m", "4194304:4194304"],
                        4 << 20), lambda us: (4 << 20) / us),
        "streaming 1 MiB bandwidth [MB/s]": (
            "MB/s", hpceval("p2p", ["--modes", "stream", "--protocols", "isend", "--sizes", "1M",
                                    "--budget", "0.5"], "bandwidth", bytes=1 << 20),
            table_value(MPIRUN + [str(osu / "pt2pt/osu_bw"), "-m", "1048576:1048576"], 1 << 20),
            ident),
    }
    for op in ("bcast", "allgather", "allreduce"):
        for pages in ("thp", "base"):   # hpceval's default; OSU's own (base pages)
            out[f"{op} 1 MiB, 2 ranks, {pages} pages, mean over ranks [us]"] = (
                "us", hpceval("collectives", ["--ops", op, "--sizes", "1M", "--budget", "0.5",
                                              "--buffer-pages", pages],
                              "latency_mean", op=op, bytes=1 << 20),
                table_value(MPIRUN + [str(osu / f"collective/osu_{op}"), "-m",
                                      "1048576:1048576"], 1 << 20), ident)
    for t in (1, 2):
        out[f"STREAM triad best, {t} thread(s) [GB/s]"] = (
            "GB/s", hpceval("stream", ["--n", str(n), "--threads", str(t), "--max-reps", "20"],
                            "bandwidth", stat="max", mpi=False, env=stream_env(t), cpus="0-1",
                            kernel="triad"),
            lambda t=t: _stream_triad(peers, n, stream_env(t)), ident)
    out[f"latency {lat_mb} MiB fully random [ns]"] = (
        "ns", hpceval("mem-latency", ["--sizes", f"{lat_mb}M", "--order", "random", "--budget",
                                      "1"], "latency", mpi=False, bytes=lat_mb << 20),
        lambda: _lat_mem_rd(lat[0], lat_mb) if lat else sys.exit("peers_ab: no lat_mem_rd"), ident)
    out["latency 256 MiB, 256 KiB windows [ns]"] = (
        "ns", hpceval("mem-latency", ["--sizes", "256M", "--order", "window", "--budget", "1"],
                      "latency", mpi=False, bytes=256 << 20),
        lambda: _multichase(peers), ident)
    return out


def _stream_triad(peers: Path, n: int, env) -> float:
    text = run(["taskset", "-c", "0-1", str(peers / "stream/stream_c")], env)
    m = re.search(r"^Triad:\s+([\d.]+)", text, re.M)
    return float(m.group(1)) / 1000.0      # MB/s -> GB/s


def _lat_mem_rd(binary: str, mb: int) -> float:
    # lat_mem_rd -t: random order over the whole set, TLB misses included; MB, stride 64. It
    # sweeps every size up to MB (256: over 5 minutes); the last line is the set asked for.
    lines = [l.split() for l in run(["taskset", "-c", "0", binary, "-t", str(mb), "64"]).splitlines()]
    return float([f for f in lines if len(f) == 2 and f[0][0].isdigit()][-1][1])


def _multichase(peers: Path) -> float:
    # default TLB locality: 64 base pages (256 KiB); -a: the average, as our median
    out = run(["taskset", "-c", "0", str(peers / "multichase/multichase"), "-s", "64", "-m",
               "256m", "-n", "5", "-a"])
    return float(out.split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers", required=True, type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", nargs="*", default=None, help="substrings of comparison names")
    ap.add_argument("--lat-mb", type=int, default=256, help="fully random latency set (MiB)")
    a = ap.parse_args()
    for name, (unit, ours, peer, conv) in comparisons(a.peers, a.lat_mb).items():
        if a.only and not any(s in name for s in a.only):
            continue
        mine, theirs = [], []
        for _ in range(a.rounds):
            mine.append(ours())
            theirs.append(conv(peer()))
        m, t = statistics.median(mine), statistics.median(theirs)
        print(f"{name:48s} hpceval {m:10.4g}  peer {t:10.4g}  hpceval/peer {m / t:5.3f}  "
              f"(rounds: {', '.join(f'{x:.4g}' for x in mine)} | "
              f"{', '.join(f'{x:.4g}' for x in theirs)})", flush=True)


if __name__ == "__main__":
    main()
