#!/usr/bin/env python3
"""hpceval's nbc beside Intel MPI Benchmarks' IMB-NBC (issue #48: the overlap of non-blocking
collectives by IMB-NBC's own definition), in alternating rounds (hpceval, IMB, hpceval, IMB,
...) so that the machine's drift hits both alike. Python only starts the programs and reads
their output (peers_ab.py's helpers); every timed loop is the tools' own C. Figures are medians
over the rounds.

    python3 benchmarks/imb_nbc_ab.py --imb PATH [--mpi openmpi|mpich] [--rounds 5]
        [--ops ibarrier,ibcast,iallreduce,iallgather,ialltoall] [--sizes 8,1K,64K,1M]

PATH is an IMB-NBC binary built outside the repository with the MPI chosen (github.com/intel/
mpi-benchmarks: `make IMB-NBC CC=mpicc CXX=mpicxx`; never committed). 2 ranks bound to cores.
hpceval runs as IMB-NBC does where it has the setting: base pages, no MPI_Test during the
computation (`--tests 0`). What still differs (docs/compare.md, "IMB-NBC"): IMB's iallreduce
sums MPI_FLOAT, hpceval's int32 (4 bytes both); IMB times each operation alone with
`MPI_Wtime` and a barrier between (its `-sync`), hpceval times batches; IMB's t_CPU is the
computation timed inside the overlapped iterations, hpceval's time_cpu the computation alone."""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers_ab  # noqa: E402  (run, results, pick, hpceval_cmd, LAUNCH)
from osu_mpi_ab import label, size_of  # noqa: E402

OPS = ("ibarrier", "ibcast", "iallreduce", "iallgather", "ialltoall")
IMB_NAME = {op: "I" + op[1:] for op in OPS}         # ibcast -> Ibcast
# (what, hpceval's metric, IMB's column counted from t_ovrl)
COLUMNS = (("overlapped [us]", "time_overlapped", 0), ("pure [us]", "time_pure", 1),
           ("compute [us]", "time_cpu", 2), ("overlap [%]", "overlap", 3))


def imb_sections(text: str) -> Dict[str, Dict[int, List[float]]]:
    """IMB's output: benchmark -> bytes (0 for Ibarrier) -> t_ovrl, t_pure, t_CPU, overlap."""
    out: Dict[str, Dict[int, List[float]]] = {}
    rows: Dict[int, List[float]] = {}
    for line in text.splitlines():
        if line.startswith("# Benchmarking "):
            rows = out.setdefault(line.split()[2], {})
            continue
        f = line.split()
        try:
            nums = [float(x) for x in f]
        except ValueError:
            continue
        if len(nums) == 6:          # bytes, repetitions, four figures
            rows[int(nums[0])] = nums[2:]
        elif len(nums) == 5:        # Ibarrier: repetitions, four figures
            rows[0] = nums[1:]
    return out


def quantity(op: str, n: int, what: str) -> str:
    return f"nbc {op} {label(n) if op != 'ibarrier' else ''} {what}".replace("  ", " ")


def hp_measure(ops: List[str], sizes: List[int], budget: str) -> Dict[str, float]:
    args = ["--ops", ",".join(ops), "--sizes", ",".join(map(str, sizes)), "--tests", "0",
            "--buffer-pages", "base", "--budget", budget]
    recs = peers_ab.results(peers_ab.run(peers_ab.hpceval_cmd("nbc", args)))
    got = {}
    for op in ops:
        for n in ([0] if op == "ibarrier" else sizes):
            params = {"op": op} if op == "ibarrier" else {"op": op, "bytes": n}
            for what, metric, _ in COLUMNS:
                got[quantity(op, n, what)] = peers_ab.pick(recs, metric, **params)
    return got


def imb_measure(imb: str, ops: List[str], sizes: List[int], lengths: Path) -> Dict[str, float]:
    cmd = peers_ab.MPIRUN + [imb, *(IMB_NAME[op] for op in ops), "-msglen", str(lengths),
                             "-npmin", "2"]
    found = imb_sections(peers_ab.run(cmd))
    got = {}
    for op in ops:
        rows = found.get(IMB_NAME[op], {})
        for n in ([0] if op == "ibarrier" else sizes):
            if n not in rows:
                sys.exit(f"imb_nbc_ab: IMB-NBC printed no {IMB_NAME[op]} row for {n} bytes")
            for what, _, col in COLUMNS:
                got[quantity(op, n, what)] = rows[n][col]
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--imb", required=True, help="the IMB-NBC binary")
    ap.add_argument("--mpi", choices=sorted(peers_ab.LAUNCH), default="openmpi")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--sizes", default="8,1K,64K,1M", help="bytes, multiples of 4")
    ap.add_argument("--budget", default="0.2", help="hpceval's seconds per point")
    ap.add_argument("--markdown", action="store_true", help="also the table's rows as markdown")
    a = ap.parse_args()
    peers_ab.MPIRUN, peers_ab.BIN = peers_ab.LAUNCH[a.mpi]
    ops = [o for o in a.ops.split(",") if o]
    bad = [o for o in ops if o not in OPS]
    if bad:
        sys.exit(f"imb_nbc_ab: unknown --ops {bad} (known: {', '.join(OPS)})")
    sizes = [size_of(w) for w in a.sizes.split(",")]
    lengths = Path(tempfile.mkdtemp()) / "msglen"
    lengths.write_text("".join(f"{n}\n" for n in sizes))
    mine: Dict[str, List[float]] = {}
    theirs: Dict[str, List[float]] = {}
    for r in range(a.rounds):
        for measure, got in ((lambda: hp_measure(ops, sizes, a.budget), mine),
                             (lambda: imb_measure(a.imb, ops, sizes, lengths), theirs)):
            for q, v in measure().items():
                got.setdefault(q, []).append(v)
        print(f"# round {r + 1} of {a.rounds} done", file=sys.stderr, flush=True)
    print(f"# {a.mpi}, {a.rounds} rounds, medians; hpceval {peers_ab.BIN}, IMB-NBC {a.imb}; "
          "paired: the median of the rounds' own ratios")
    peers_ab.print_ab(mine, theirs, "IMB", a.mpi, a.markdown, width=40)


if __name__ == "__main__":
    main()
