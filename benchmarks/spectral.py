#!/usr/bin/env python3
"""hpceval-sst against NCAR's STSWM (the 1990s Fortran spectral shallow-water code), whole
process and per step, on one pinned core. Williamson test case 2 (alpha = pi/4), 5 days, one
level, semi-implicit, at STSWM's standard steps: T42 2400 s, T85 1200 s, T170 600 s. Python only
starts the programs and reads their output; every timed loop is the programs' own.

    python3 benchmarks/spectral.py [--rounds 5] [--cpu 1] [--sst BINARY] [--reference DIR]
                                   [--truncations 42,85,170]

--sst: the hpceval-sst binary (default build/bin/hpceval-sst; give an older copy for before/after).
--reference DIR: STSWM built outside the repository, one binary per truncation (its array sizes
are compile-time parameters): DIR/stswm-T42, DIR/stswm-T85, DIR/stswm-T170 (the 1992 init.f
and force.f; see benchmarks/README.md). Its namelist is written here.

Each round runs every program once per truncation, alternating (sst, reference, sst, ...) so a
shared machine's drift hits both alike. Whole process: the wall time and user CPU time of the
process (GNU time), one integration (--warmup 0 --max-reps 1), so MPI_Init, FFTW planning,
the Legendre tables and the verification are inside it as the reference's set-up and output
are inside its own. Per step: hpceval-sst's step_time record (the timed integration only,
per pass); the reference's per step is (user time of 5 days - user time of one step) / (steps -
1). hpceval-sst runs twice per round: as it starts by itself ("sst"; since the harness asks a
singleton for no Open MPI daemon and no UCX, this is the same as "sst*" for a current build, and
Open MPI's defaults for an older copy) and with those two settings in the environment ("sst*":
MPI_Init 0.03-0.06 s instead of 0.3-0.4 s on the development VM). Prints
min and median over the rounds, hpceval-sst's start-up (its records' startup_* fields: MPI_Init,
then Legendre tables + FFTW plans) and the ratios reference / hpceval-sst."""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parent.parent
DT = {42: 2400.0, 85: 1200.0, 170: 600.0}  # STSWM's standard semi-implicit steps
ALPHA = math.pi / 4
DAYS = 5.0
TIME = ["/usr/bin/time", "-f", "TIME %e %U"]


def timed(cmd: List[str], cwd: str | None = None, stdin: str | None = None,
          env: Dict[str, str] | None = None) -> tuple[float, float, str]:
    """(wall s, user s, stdout) of one process."""
    p = subprocess.run(TIME + cmd, input=stdin, capture_output=True, text=True, cwd=cwd,
                       timeout=1800, env={**os.environ, **(env or {})})
    if p.returncode != 0:
        sys.exit(f"spectral: {' '.join(cmd)} failed: {p.stderr.strip()[-400:]}")
    m = re.findall(r"^TIME ([\d.]+) ([\d.]+)$", p.stderr, re.M)
    return float(m[-1][0]), float(m[-1][1]), p.stdout


# Open MPI singleton start-up without the daemon and UCX probing (0.06 s instead of 0.4 s here).
ISOLATED = {"OMPI_MCA_ess_singleton_isolated": "1", "OMPI_MCA_pml": "ob1"}


def run_sst(binary: str, cpu: str, M: int, env: Dict[str, str] | None = None) -> Dict[str, float]:
    cmd = ["taskset", "-c", cpu, binary, "--truncations", str(M), "--levels", "1", "--test", "2",
           "--alpha", repr(ALPHA), "--days", str(DAYS), "--dt", str(DT[M]),
           "--warmup", "0", "--min-reps", "1", "--max-reps", "1"]
    wall, user, out = timed(cmd, env=env)
    recs = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    res = {"wall": wall, "user": user}
    for r in recs:
        if r.get("type") != "result":
            continue
        if r["metric"] == "step_time":
            res["step"] = r["stats"]["median"]
            res["mpi_init"] = r.get("startup_mpi_init_s", float("nan"))
            res["setup"] = r.get("startup_tables_s", math.nan) + r.get("startup_fft_plans_s",
                                                                       math.nan)
        if r["metric"] == "height_error" and r["params"]["norm"] == "linf":
            res["err_linf"] = r["stats"]["max"]
    if "step" not in res:
        sys.exit(f"spectral: no step_time record from {binary} at T{M}")
    return res


NAMELIST = """ &PHYVAR
 ALPHA = {alpha!r},
 /
 &EXPDEF
 DT = {dt}, TAUE = {hours}, ERRFRQ = {hours}, EGYFRQ = 999.0, SPCFRQ = 999.0, TAUO = 999.0,
 GPHFRQ = 999.0, SITS = .TRUE., ICOND = 2,
 /
 &PLTDEF
 LCONT = .FALSE., LPSP = .FALSE., LOP = .FALSE., LCP = .FALSE., LG = .FALSE., LU = .FALSE.,
 LV = .FALSE., LZ = .FALSE., LD = .FALSE., LVV = .FALSE., LVVG = .FALSE., LGPHS = .FALSE.,
 /
 &FNAMES
 /
"""


def run_reference(ref: Path, cpu: str, M: int, hours: float) -> Dict[str, float]:
    nl = NAMELIST.format(alpha=ALPHA, dt=DT[M], hours=hours)
    with tempfile.TemporaryDirectory() as d:  # it writes a grid file where it runs
        wall, user, out = timed(["taskset", "-c", cpu, str(ref / f"stswm-T{M}")], cwd=d,
                                stdin=nl, env={"EXPERIMENT": "0002"})
    err = re.findall(r"HEIGHT ERROR\s*\n\s*L1 =\s*(\S+), L2 =\s*(\S+) L\(INF\) =\s*(\S+)", out)
    res = {"wall": wall, "user": user}
    if err:
        res["err_linf"] = float(err[-1][2])
    return res


def fmt(xs: List[float], scale: float = 1.0) -> str:
    return f"{min(xs) * scale:8.3f} {statistics.median(xs) * scale:8.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cpu", default="1", help="the core every process is pinned to")
    ap.add_argument("--sst", default=str(ROOT / "build" / "bin" / "hpceval-sst"))
    ap.add_argument("--reference", type=Path, help="directory of stswm-T42, -T85, -T170")
    ap.add_argument("--truncations", default="42,85,170")
    a = ap.parse_args()
    truncs = [int(t) for t in a.truncations.split(",")]
    for M in truncs:
        if M not in DT:
            sys.exit(f"spectral: T{M}: only {sorted(DT)} (STSWM's standard steps)")
    sst: Dict[int, List[Dict[str, float]]] = {M: [] for M in truncs}
    iso: Dict[int, List[Dict[str, float]]] = {M: [] for M in truncs}
    ref: Dict[int, List[Dict[str, float]]] = {M: [] for M in truncs}
    one: Dict[int, List[Dict[str, float]]] = {M: [] for M in truncs}
    for _ in range(a.rounds):
        for M in truncs:
            sst[M].append(run_sst(a.sst, a.cpu, M))
            iso[M].append(run_sst(a.sst, a.cpu, M, ISOLATED))
            if a.reference:
                ref[M].append(run_reference(a.reference, a.cpu, M, DAYS * 24))
                one[M].append(run_reference(a.reference, a.cpu, M, DT[M] / 3600))
    print(f"case 2, alpha = pi/4, {DAYS:g} days, 1 level, taskset -c {a.cpu}, {a.rounds} rounds; "
          f"min and median; load: {os.getloadavg()[0]:.2f}")
    print("sst: MPI defaults; sst*: " + " ".join(f"{k}={v}" for k, v in ISOLATED.items()))
    print(f"{'':6} {'dt':>5} {'steps':>5} {'':5} {'wall [s]':>17} {'user [s]':>17} "
          f"{'step [ms]':>17} {'MPI_Init':>8} {'set-up':>7} {'err linf':>9}")
    med = lambda rows, k: statistics.median(x[k] for x in rows)
    for M in truncs:
        steps = round(DAYS * 86400 / DT[M])
        for name, s in (("sst", sst[M]), ("sst*", iso[M])):
            print(f"{'T%d' % M if name == 'sst' else '':6} {DT[M]:5.0f} {steps:5d} {name:5} "
                  f"{fmt([r['wall'] for r in s])} {fmt([r['user'] for r in s])} "
                  f"{fmt([r['step'] for r in s], 1e3)} {med(s, 'mpi_init'):8.3f} "
                  f"{med(s, 'setup'):7.3f} {s[-1]['err_linf']:9.2e}")
        if not a.reference:
            continue
        r = ref[M]
        per = [(x["user"] - y["user"]) / (steps - 1) for x, y in zip(r, one[M])]
        print(f"{'':6} {'':5} {'':5} {'ref':5} {fmt([x['wall'] for x in r])} "
              f"{fmt([x['user'] for x in r])} {fmt(per, 1e3)} {'':16} "
              f"{r[-1].get('err_linf', float('nan')):9.2e}")
        for name, s in (("sst", sst[M]), ("sst*", iso[M])):
            print(f"{'':6} {'':5} {'':5} {'ref/' + name:9} {'':4} "
                  f"{med(r, 'wall') / med(s, 'wall'):8.2f} {'':8} "
                  f"{med(r, 'user') / med(s, 'user'):8.2f} {'':8} "
                  f"{statistics.median(per) / med(s, 'step'):8.2f}   (medians; min: wall "
                  f"{min(x['wall'] for x in r) / min(x['wall'] for x in s):.2f}, user "
                  f"{min(x['user'] for x in r) / min(x['user'] for x in s):.2f})")


if __name__ == "__main__":
    main()
