#!/usr/bin/env python3
"""hpceval's msgrate, nbc and rma beside OSU 7.4's osu_mbw_mr, osu_iallreduce/-ialltoall/-ibcast
and one-sided tests (issue #48 item 5), in alternating rounds (hpceval, OSU, hpceval, OSU, ...)
so that the machine's drift hits both alike. Python only starts the programs and reads their
output (peers_ab.py's helpers); every timed loop is the tools' own C. Figures are medians over
the rounds.

    python3 benchmarks/osu_mpi_ab.py --osu DIR [--mpi openmpi|mpich] [--rounds 7]
        [--only msgrate nbc rma] [--sizes 8,1K,64K,1M] [--budget 0.2]

DIR is OSU 7.4's install prefix (configure --prefix=DIR; make install), built outside the
repository with the MPI chosen (never committed): its programs are found below DIR by name.
2 ranks bound to cores (`mpirun --bind-to core -np 2`, or `mpiexec.mpich -n 2 -bind-to core`
with build-mpich's binaries). hpceval runs with OSU's settings where it has them: base pages
(OSU's buffers), a window of 64 (osu_mbw_mr, osu_put_bw/osu_get_bw), no MPI_Test during the
computation (`--tests 0`, OSU's default), 4-byte integers in the iallreduce (`-T mpi_int`;
OSU's one-sided tests know MPI_CHAR only: its acc sums bytes, its fop and cas are on one byte,
hpceval's on 4- and 8-byte integers). Under Open MPI both run with `OMPI_MCA_osc=^rdma` (what
hpceval-rma sets itself: osc/rdma kills the target in MPI_Compare_and_swap), so that one osc
component serves both. docs/compare.md lists what still differs."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers_ab  # noqa: E402  (the shared helpers: run, results, pick, table_rows, LAUNCH)

SIZE_WORDS = {"K": 1 << 10, "M": 1 << 20}
SYNCS = ("flush", "lock", "fence", "pscw")
Side = Callable[[], Dict[str, float]]  # one launch -> quantity -> figure


def size_of(word: str) -> int:
    return int(word[:-1]) * SIZE_WORDS[word[-1]] if word[-1] in SIZE_WORDS else int(word)


def label(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB" if n >= 1 << 10 else f"{n} B"


def hp_side(binary: str, args: List[str], want: List[Tuple[str, str, dict]]) -> Side:
    """hpceval's binary once; want: (quantity, metric, params) -> the record's median."""
    def measure() -> Dict[str, float]:
        recs = peers_ab.results(peers_ab.run(peers_ab.hpceval_cmd(binary, args)))
        return {q: peers_ab.pick(recs, metric, **params) for q, metric, params in want}
    return measure


def osu_side(cmd: List[str], want: List[Tuple[str, int, int, float]], env=None) -> Side:
    """An OSU program once; want: (quantity, size, column, factor) -> the row's figure x factor."""
    def measure() -> Dict[str, float]:
        rows = peers_ab.table_rows(peers_ab.run(cmd, env))
        missing = [q for q, n, col, _ in want if len(rows.get(n, [])) < col]
        if missing:
            sys.exit(f"osu_mpi_ab: {cmd[-1]}... printed no figure for {missing}")
        return {q: rows[n][col - 1] * f for q, n, col, f in want}
    return measure


def osu_bin(osu: Path, name: str) -> str:
    found = sorted(osu.rglob(name))
    if not found:
        sys.exit(f"osu_mpi_ab: no {name} below {osu}")
    return str(found[0])


def groups(osu: Path, mpi: str, sizes: List[int], budget: str) -> Dict[str, List[Tuple[Side, Side]]]:
    """benchmark -> [(hpceval side, OSU side)], each pair measuring the same quantities."""
    env = {"OMPI_MCA_osc": "^rdma"} if mpi == "openmpi" else None
    sz = ",".join(map(str, sizes))
    rng = ["-m", f"{min(sizes)}:{max(sizes)}"]
    hp = ["--sizes", sz, "--buffer-pages", "base", "--budget", budget]
    prog = lambda name, *args: peers_ab.MPIRUN + [osu_bin(osu, name), *args]
    out: Dict[str, List[Tuple[Side, Side]]] = {}

    q = lambda n, what: f"msgrate {label(n)} {what}"
    out["msgrate"] = [(
        hp_side("msgrate", hp + ["--window", "64"],
                [(q(n, "rate [Mmsg/s]"), "message_rate", {"bytes": n}) for n in sizes] +
                [(q(n, "bandwidth [MB/s]"), "bandwidth", {"bytes": n}) for n in sizes]),
        osu_side(prog("osu_mbw_mr", *rng),
                 [(q(n, "rate [Mmsg/s]"), n, 2, 1e-6) for n in sizes] +
                 [(q(n, "bandwidth [MB/s]"), n, 1, 1.0) for n in sizes]))]

    out["nbc"] = []
    for op in ("iallreduce", "ialltoall", "ibcast"):
        q = lambda n, what, op=op: f"nbc {op} {label(n)} {what}"
        cols = (("pure [us]", "time_pure", 3), ("compute [us]", "time_cpu", 2),
                ("overlapped [us]", "time_overlapped", 1), ("overlap [%]", "overlap", 4))
        out["nbc"].append((
            hp_side("nbc", hp + ["--ops", op, "--tests", "0"],
                    [(q(n, w), m, {"op": op, "bytes": n}) for n in sizes for w, m, _ in cols]),
            osu_side(prog(f"osu_{op}", *rng, *(["-T", "mpi_int"] if op == "iallreduce" else [])),
                     [(q(n, w), n, c, 1.0) for n in sizes for w, _, c in cols])))

    out["rma"] = []
    want = lambda op, sync, what, metric, w: [
        (f"rma {op} {sync} {label(n)} {what}", metric, {"op": op, "sync": sync, "bytes": n,
                                                        "window": w}) for n in sizes]
    put_get: List[Tuple[str, str, dict]] = []
    for op in ("put", "get"):
        for sync in SYNCS:
            put_get += want(op, sync, "latency [us]", "latency", 1)
        put_get += want(op, "flush", "bandwidth [MB/s]", "bandwidth", 64)
    hp_rma = hp_side("rma", hp + ["--ops", "put,get", "--window", "64"], put_get)
    for op in ("put", "get"):
        for sync in SYNCS:
            out["rma"].append((
                hp_rma if (op, sync) == ("put", "flush") else None,
                osu_side(prog(f"osu_{op}_latency", "-s", sync, *rng),
                         [(f"rma {op} {sync} {label(n)} latency [us]", n, 1, 1.0) for n in sizes],
                         env)))
        out["rma"].append((None, osu_side(prog(f"osu_{op}_bw", "-s", "flush", *rng),
                                         [(f"rma {op} flush {label(n)} bandwidth [MB/s]", n, 1,
                                           1.0) for n in sizes], env)))
    atomics = (want("acc", "flush", "latency [us]", "latency", 1) +
               [(f"rma {op} flush 8 B latency [us]", "latency",
                 {"op": op, "sync": "flush", "bytes": 8}) for op in ("fop", "cas")])
    out["rma"].append((
        hp_side("rma", hp + ["--ops", "acc,fop,cas", "--sync", "flush"], atomics),
        osu_side(prog("osu_acc_latency", "-s", "flush", *rng),
                 [(f"rma acc flush {label(n)} latency [us]", n, 1, 1.0) for n in sizes], env)))
    for op in ("fop", "cas"):   # OSU's one-sided tests have MPI_CHAR only: a row of 1 B
        out["rma"].append((None, osu_side(prog(f"osu_{op}_latency", "-s", "flush"),
                                          [(f"rma {op} flush 8 B latency [us]", 1, 1, 1.0)],
                                          env)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--osu", required=True, type=Path, help="OSU 7.4's install prefix")
    ap.add_argument("--mpi", choices=sorted(peers_ab.LAUNCH), default="openmpi")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", nargs="*", default=["msgrate", "nbc", "rma"])
    ap.add_argument("--sizes", default="8,1K,64K,1M", help="powers of two, 4 B at least")
    ap.add_argument("--budget", default="0.2", help="hpceval's seconds per point")
    ap.add_argument("--markdown", action="store_true", help="also the table's rows as markdown")
    a = ap.parse_args()
    peers_ab.MPIRUN, peers_ab.BIN = peers_ab.LAUNCH[a.mpi]
    sizes = [size_of(w) for w in a.sizes.split(",")]
    todo = {k: v for k, v in groups(a.osu, a.mpi, sizes, a.budget).items() if k in a.only}
    mine: Dict[str, List[float]] = {}
    theirs: Dict[str, List[float]] = {}
    for r in range(a.rounds):
        for pairs in todo.values():
            for ours, peer in pairs:      # A, B: hpceval's launch, then OSU's
                for side, got in ((ours, mine), (peer, theirs)):
                    for quantity, v in (side() if side else {}).items():
                        got.setdefault(quantity, []).append(v)
        print(f"# round {r + 1} of {a.rounds} done", file=sys.stderr, flush=True)
    print(f"# {a.mpi}, {a.rounds} rounds, medians; hpceval {peers_ab.BIN}, OSU {a.osu}; "
          "paired: the median of the rounds' own ratios")
    peers_ab.print_ab(mine, theirs, "OSU", a.mpi, a.markdown)


if __name__ == "__main__":
    main()
