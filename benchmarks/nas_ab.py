#!/usr/bin/env python3
"""hpceval's npb-cg, -mg, -lu, -bt and -sp beside the official NAS Parallel Benchmarks
(NPB 3.4 MPI, built outside the repository) on the same classes and rank counts, in alternating
rounds (A, B, A, B): time of the timed section, Mop/s as NPB counts them, and whether both
verified.

    python3 benchmarks/nas_ab.py --npb-bin DIR [--kernels cg,mg,lu,bt,sp] [--classes S,W,A]
                                 [--ranks 1,2] [--rounds 3]

DIR holds NPB's cg.C.x, mg.C.x, lu.C.x, bt.C.x, sp.C.x binaries (e.g. `make LU CLASS=A` in
NPB3.4-MPI; they may live in different builds: give --npb-bin more than once). hpceval's side
runs its binaries directly under the same mpirun, one sample per launch, as NPB's own run does.
Prints the median over rounds of each side and hpceval / NPB for time."""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "build" / "bin"
KERNELS = ("cg", "mg", "lu", "bt", "sp")


def mpirun(np_: int) -> List[str]:
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    return ["mpirun", *root, "--oversubscribe", "--bind-to", "core", "-np", str(np_)]


def npb(binary: Path, np_: int) -> Dict[str, float]:
    out = subprocess.run(mpirun(np_) + [str(binary)], capture_output=True, text=True,
                         timeout=3600).stdout
    t = re.search(r"Time in seconds\s*=\s*([\d.Ee+-]+)", out)
    m = re.search(r"Mop/s total\s*=\s*([\d.Ee+-]+)", out)
    ok = re.search(r"Verification\s*=\s*SUCCESSFUL", out)
    if not (t and m):
        raise SystemExit(f"{binary}: no time in its output:\n{out[-500:]}")
    return {"time": float(t.group(1)), "mops": float(m.group(1)), "verified": bool(ok)}


def hpceval(kernel: str, cls: str, np_: int) -> Dict[str, float]:
    argv = mpirun(np_) + [str(BIN / f"hpceval-npb-{kernel}"), "--class", cls, "--warmup", "0",
                          "--min-reps", "1", "--max-reps", "1"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=3600)
    if p.returncode:
        raise SystemExit(f"hpceval-npb-{kernel} class {cls}: exit {p.returncode}: {p.stderr}")
    recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    res = {r["metric"]: r for r in recs if r.get("type") == "result"}
    secs = res["run_time"]["stats"]["median"]
    return {"time": secs, "mops": res["mops"]["stats"]["median"],
            "verified": all(r.get("verified", True) for r in res.values())}


def binary(dirs: List[Path], kernel: str, cls: str) -> Optional[Path]:
    return next((d / f"{kernel}.{cls}.x" for d in dirs if (d / f"{kernel}.{cls}.x").is_file()),
                None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--npb-bin", action="append", type=Path, required=True)
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--classes", default="S,W,A")
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    print(f"{'kernel':6} {'class':5} {'np':>3} {'hpceval s':>10} {'NPB s':>10} {'ratio':>6} "
          f"{'hpceval Mop/s':>14} {'NPB Mop/s':>10}  verified")
    for kernel in a.kernels.split(","):
        for cls in a.classes.split(","):
            peer = binary(a.npb_bin, kernel, cls)
            if peer is None:
                print(f"{kernel:6} {cls:5}   (no {kernel}.{cls}.x in --npb-bin)")
                continue
            for np_ in map(int, a.ranks.split(",")):
                ours, theirs = [], []
                for _ in range(a.rounds):
                    ours.append(hpceval(kernel, cls, np_))
                    theirs.append(npb(peer, np_))
                mo = {k: statistics.median(r[k] for r in ours) for k in ("time", "mops")}
                mt = {k: statistics.median(r[k] for r in theirs) for k in ("time", "mops")}
                ver = all(r["verified"] for r in ours + theirs)
                ratio = f"{mo['time'] / mt['time']:>6.2f}" if mt["time"] else "     -"
                print(f"{kernel:6} {cls:5} {np_:>3} {mo['time']:>10.4f} {mt['time']:>10.4f} "
                      f"{ratio} {mo['mops']:>14.1f} {mt['mops']:>10.1f}"
                      f"  {'both' if ver else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
