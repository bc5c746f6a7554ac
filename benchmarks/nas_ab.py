#!/usr/bin/env python3
"""hpceval's npb-cg, -mg, -lu, -bt and -sp beside the official NAS Parallel Benchmarks
(NPB 3.4 MPI, built outside the repository) on the same classes and rank counts, in alternating
rounds (A, B, A, B): Mop/s as NPB counts them, the time of the timed section, and whether both
verified.

    python3 benchmarks/nas_ab.py --npb-src NPB3.4-MPI [--build DIR] [--kernels cg,mg,lu,bt,sp]
                                 [--classes W,A] [--ranks 1,2] [--rounds 3] [--markdown]
    python3 benchmarks/nas_ab.py --npb-bin DIR ...      (binaries built before)

--npb-src is NPB's MPI source tree (NPB3.4-MPI of the NAS distribution, fetched by you: never
committed); it is copied to --build (default /tmp/npb-build) and built there with the flags
hpceval's C gets (gfortran -O3 -march=native, -fallow-argument-mismatch for gfortran >= 10),
`make K CLASS=C` per kernel and class. --npb-bin names directories holding cg.A.x, lu.W.x, ...
instead (give it more than once for several builds). hpceval's side runs its binaries directly
under the same mpirun, one timed run per launch, as NPB's own run does. BT and SP run only on
square rank counts (NPB's rule): other counts are skipped for them.

Prints the median over rounds of each side and hpceval / NPB by Mop/s (above 1: hpceval
faster), with the load average before and after; --markdown prints the table for docs."""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "build" / "bin"
KERNELS = ("cg", "mg", "lu", "bt", "sp")
FFLAGS = "-O3 -march=native -fallow-argument-mismatch"


def mpirun(np_: int) -> List[str]:
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    return ["mpirun", *root, "--oversubscribe", "--bind-to", "core", "-np", str(np_)]


def build_npb(src: Path, dest: Path, kernels: List[str], classes: List[str]) -> Path:
    """NPB's binaries of each kernel and class, built in a copy of src at dest: dest/bin."""
    if not (src / "config" / "make.def.template").is_file():
        sys.exit(f"nas_ab: {src} is not NPB's MPI source tree (no config/make.def.template)")
    if not dest.exists():
        shutil.copytree(src, dest)
    tpl = (dest / "config" / "make.def.template").read_text()
    tpl = re.sub(r"(?m)^FFLAGS\s*=.*$", f"FFLAGS = {FFLAGS}", tpl)
    tpl = re.sub(r"(?m)^CFLAGS\s*=.*$", "CFLAGS = -O3 -march=native", tpl)
    (dest / "config" / "make.def").write_text(tpl)
    (dest / "bin").mkdir(exist_ok=True)
    for k in kernels:
        for c in classes:
            if (dest / "bin" / f"{k}.{c}.x").is_file():
                continue
            p = subprocess.run(["make", k.upper(), f"CLASS={c}"], cwd=dest, capture_output=True,
                               text=True)
            if p.returncode:
                sys.exit(f"nas_ab: make {k.upper()} CLASS={c} failed:\n{p.stdout[-800:]}"
                         f"{p.stderr[-800:]}")
    return dest / "bin"


def npb(binary: Path, np_: int) -> Dict[str, float]:
    out = subprocess.run(mpirun(np_) + [str(binary)], capture_output=True, text=True,
                         timeout=3600).stdout
    t = re.search(r"Time in seconds\s*=\s*([\d.Ee+-]+)", out)
    m = re.search(r"Mop/s total\s*=\s*([\d.Ee+-]+)", out)
    ok = re.search(r"Verification\s*=\s*SUCCESSFUL", out)
    if not (t and m):
        sys.exit(f"nas_ab: {binary}: no time in its output:\n{out[-500:]}")
    return {"time": float(t.group(1)), "mops": float(m.group(1)), "verified": bool(ok)}


def hpceval(kernel: str, cls: str, np_: int) -> Dict[str, float]:
    argv = mpirun(np_) + [str(BIN / f"hpceval-npb-{kernel}"), "--class", cls, "--warmup", "0",
                          "--min-reps", "1", "--max-reps", "1"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=3600)
    if p.returncode:
        sys.exit(f"nas_ab: hpceval-npb-{kernel} class {cls}: exit {p.returncode}: {p.stderr}")
    recs = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    res = {r["metric"]: r for r in recs if r.get("type") == "result"}
    return {"time": res["run_time"]["stats"]["median"], "mops": res["mops"]["stats"]["median"],
            "verified": all(r.get("check", "ok") == "ok" for r in res.values())}


def binary(dirs: List[Path], kernel: str, cls: str) -> Optional[Path]:
    return next((d / f"{kernel}.{cls}.x" for d in dirs if (d / f"{kernel}.{cls}.x").is_file()),
                None)


def compare(peer: Path, kernel: str, cls: str, np_: int, rounds: int) -> dict:
    """Alternated rounds of both sides; the medians and whether every run verified."""
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(hpceval(kernel, cls, np_))
        theirs.append(npb(peer, np_))
    row = {"kernel": kernel, "class": cls, "np": np_,
           "verified": all(r["verified"] for r in ours + theirs)}
    for side, runs in (("hpceval", ours), ("npb", theirs)):
        for k in ("time", "mops"):
            row[f"{side}_{k}"] = statistics.median(r[k] for r in runs)
    row["ratio"] = row["hpceval_mops"] / row["npb_mops"]
    return row


def print_row(r: dict, markdown: bool) -> None:
    v = "both" if r["verified"] else "NO"
    if markdown:
        print(f"| {r['kernel'].upper()} | {r['class']} | {r['np']} | {r['hpceval_mops']:,.0f} | "
              f"{r['npb_mops']:,.0f} | **{r['ratio']:.2f}** | {r['hpceval_time']:.3f} | "
              f"{r['npb_time']:.2f} | {v} |")
    else:
        print(f"{r['kernel']:6} {r['class']:5} {r['np']:>3} {r['hpceval_mops']:>14.1f} "
              f"{r['npb_mops']:>10.1f} {r['ratio']:>6.2f} {r['hpceval_time']:>10.4f} "
              f"{r['npb_time']:>8.2f}  {v}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--npb-src", type=Path, help="NPB3.4-MPI source tree to build")
    ap.add_argument("--build", type=Path, default=Path("/tmp/npb-build"))
    ap.add_argument("--npb-bin", action="append", type=Path, default=[])
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--classes", default="W,A")
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    kernels, classes = a.kernels.split(","), a.classes.split(",")
    if a.npb_src:
        a.npb_bin.append(build_npb(a.npb_src, a.build, kernels, classes))
    if not a.npb_bin:
        ap.error("give --npb-src (to build NPB) or --npb-bin")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if a.markdown:
        print("| kernel | class | ranks | hpceval Mop/s | NPB Mop/s | hpceval / NPB | hpceval s "
              "| NPB s | verified |\n|---|---|---|---|---|---|---|---|---|")
    else:
        print(f"{'kernel':6} {'class':5} {'np':>3} {'hpceval Mop/s':>14} {'NPB Mop/s':>10} "
              f"{'ratio':>6} {'hpceval s':>10} {'NPB s':>8}  verified")
    for kernel in kernels:
        for cls in classes:
            peer = binary(a.npb_bin, kernel, cls)
            if peer is None:
                print(f"{kernel:6} {cls:5}   (no {kernel}.{cls}.x in --npb-bin)")
                continue
            for np_ in map(int, a.ranks.split(",")):
                if kernel in ("bt", "sp") and math.isqrt(np_) ** 2 != np_:
                    continue
                print_row(compare(peer, kernel, cls, np_, a.rounds), a.markdown)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
