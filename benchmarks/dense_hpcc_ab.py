#!/usr/bin/env python3
"""hpceval's dense solve (real, pdgesv) beside Debian's hpcc (its HPL, `apt-get install hpcc`) on
the same n, NB and P x Q grid, in alternating rounds (hpceval, hpcc, hpceval, hpcc, ...): GFlop/s
of each, whether both passed their residual checks (HPL's scaled residual below 16), and
hpcc's StarDGEMM rate (every rank's DGEMM at once): the solve's rate as a share of the ranks'
DGEMM, the practical ceiling of an LU whose updates are DGEMM.

    python3 benchmarks/dense_hpcc_ab.py [--n 4000] [--nb 64] [--grid 1x2] [--rounds 3]
                                        [--solvers scalapack,lookahead]

Both run under the same mpirun (Open MPI, one rank per core, one BLAS thread each). hpceval's
side is `hpceval run dense` (one warm-up, three kept samples, the median); hpcc runs its whole
suite (HPL first) in a scratch directory and its HPL_Tflops is read from hpccoutf.txt. Prints
every round and the medians; the machine is shared, so the figures are labelled as loaded
unless --quiet says the machine was idle."""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parent.parent
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
HPCC_INF = """HPLinpack benchmark input file
hpceval benchmarks/dense_hpcc_ab.py
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
{n}          Ns
1            # of NBs
{nb}         NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
{p}          Ps
{q}          Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
"""


def hpceval(n: int, nb: int, p: int, q: int, db: Path, solver: str) -> Dict[str, float]:
    argv = [sys.executable, "-m", "hpceval", "run", "dense", "--np", str(p * q),
            "--set", "dense.kind=real", "--set", f"dense.n={n}", "--set", f"dense.nb={nb}",
            "--set", f"dense.solver={solver}",
            "--set", f"dense.grids={p}x{q}", "--set", "warmup=1", "--set", "min-reps=3",
            "--set", "max-reps=3", "--no-remeasure", "--llc", "reported"]
    env = {**os.environ, "HPCEVAL_DB": str(db)}
    r = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=7200)
    if r.returncode:
        raise SystemExit(f"hpceval run dense: exit {r.returncode}: {r.stderr[-800:]}")
    runs = json.loads(subprocess.run([sys.executable, "-m", "hpceval", "export", "latest"],
                                     capture_output=True, text=True, env=env, cwd=ROOT,
                                     check=True).stdout)
    [rec] = [x for x in runs[0]["records"] if x["metric"] == "gflops"]
    return {"gflops": rec["stats"]["median"], "residual": rec["extra"]["residual"],
            "passed": rec["extra"]["verified"]}


def hpcc(n: int, nb: int, p: int, q: int) -> Dict[str, float]:
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    with tempfile.TemporaryDirectory(prefix="hpcc-") as d:
        Path(d, "hpccinf.txt").write_text(HPCC_INF.format(n=n, nb=nb, p=p, q=q))
        subprocess.run(["mpirun", *root, "--oversubscribe", "--bind-to", "core", "-np",
                        str(p * q), "hpcc"], cwd=d, capture_output=True, text=True,
                       env={**os.environ, **ONE_THREAD}, timeout=7200, check=True)
        out = Path(d, "hpccoutf.txt").read_text()
    tf = re.search(r"^HPL_Tflops=([\d.eE+-]+)", out, re.M)
    res = re.search(r"\|\|Ax-b\|\|_oo/\(eps\*\(\|\|A\|\|_oo\*\|\|x\|\|_oo\+\|\|b\|\|_oo\)\*N\)=\s*"
                    r"([\d.eE+-]+)\s*\.+\s*(PASSED|FAILED)", out)
    if not tf:
        raise SystemExit(f"hpcc: no HPL_Tflops in hpccoutf.txt:\n{out[-800:]}")
    dgemm = re.search(r"^StarDGEMM_Gflops=([\d.eE+-]+)", out, re.M)
    return {"gflops": float(tf.group(1)) * 1e3, "residual": float(res.group(1)) if res else None,
            "passed": bool(res and res.group(2) == "PASSED"),
            "dgemm": float(dgemm.group(1)) if dgemm else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--nb", type=int, default=64)
    ap.add_argument("--grid", default="1x2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quiet", action="store_true", help="the machine was idle (label 'quiet')")
    ap.add_argument("--solvers", default="scalapack,lookahead",
                    help="hpceval's factorisations to run (dense's --solver; lookahead: 1 x Q)")
    a = ap.parse_args()
    p, q = (int(x) for x in a.grid.split("x"))
    solvers = a.solvers.split(",")
    rows: Dict[str, List[dict]] = {**{f"hpceval {s}": [] for s in solvers}, "hpcc": []}
    with tempfile.TemporaryDirectory(prefix="dense-ab-") as d:
        sides = [(f"hpceval {s}", lambda s=s: hpceval(a.n, a.nb, p, q, Path(d) / "r.sqlite", s))
                 for s in solvers] + [("hpcc", lambda: hpcc(a.n, a.nb, p, q))]
        for k in range(a.rounds):
            for side, fn in sides:
                r = fn()
                rows[side].append(r)
                print(f"round {k + 1} {side:18s} {r['gflops']:8.2f} GFlop/s  residual "
                      f"{r['residual']}  {'PASSED' if r['passed'] else 'FAILED'}", flush=True)
    label = "quiet" if a.quiet else "loaded"
    dgemm = [r["dgemm"] for r in rows["hpcc"] if r.get("dgemm")]
    print(f"\nreal n={a.n} NB={a.nb} grid {a.grid}, {a.rounds} alternating rounds ({label}):")
    for side, rs in rows.items():
        print(f"  {side:18s} median {statistics.median(r['gflops'] for r in rs):8.2f} GFlop/s  "
              f"(min {min(r['gflops'] for r in rs):.2f}, max {max(r['gflops'] for r in rs):.2f})")
    if dgemm:
        # hpcc's StarDGEMM: every rank's own DGEMM at once, GFlop/s a rank
        d = statistics.median(dgemm)
        for side, rs in rows.items():
            share = 100 * statistics.median(r["gflops"] for r in rs) / (d * p * q)
            print(f"  {side}: {share:.0f}% of {p * q} ranks' DGEMM (StarDGEMM median {d:.2f} "
                  "GFlop/s a rank)")


if __name__ == "__main__":
    main()
