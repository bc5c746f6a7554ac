#!/usr/bin/env python3
"""The study run end to end on a simulated platform (issue #45): wall time, peak memory, per area
the launches, their estimate against their elapsed time and the largest rank count reached,
the launches' outcomes, and every model's prediction against what the study measured
(`hpceval predict --run`).

    python3 benchmarks/study_run.py --simulate nodes=64,ppn=16 --budget 1h [--db D.sqlite]
    python3 benchmarks/study_run.py ... --build smpi-4.1      # a named SMPI build (another SimGrid)
    python3 benchmarks/study_run.py --analyse D.sqlite [--run ID]      # a study already run

Simulated runs need the SMPI build (`make build-smpi`): HPCEVAL_BINDIR is set to build-smpi/bin
unless given. Markdown tables on stdout, for docs/study.md and docs/models.md."""
from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from hpceval.catalog import BENCHMARKS  # noqa: E402

HPCEVAL = [sys.executable, "-m", "hpceval"]


def run_study(spec: str, budget: str, db: Path, build: str = "") -> dict:
    env = {**os.environ}
    if not build:
        env.setdefault("HPCEVAL_BINDIR", str(ROOT / "build-smpi" / "bin"))
    start = time.monotonic()
    p = subprocess.run([*HPCEVAL, "run", "study", "--simulate", spec, "--budget", budget,
                        "--db", str(db), *(["--build", build] if build else [])],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"exit": p.returncode, "wall_s": round(wall, 1), "peak_mib": round(peak_mib),
            "error": p.stderr.strip().splitlines()[-1] if p.returncode else None}


def export(db: Path, run: str) -> dict:
    out = subprocess.run([*HPCEVAL, "export", run, "--db", str(db), "--format", "json"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)[0]


def area_rows(run: dict) -> list:
    areas = defaultdict(lambda: {"launches": 0, "estimate": 0.0, "elapsed": 0.0, "ranks": 0,
                                 "status": Counter()})
    for l in run["launches"]:
        a = areas[BENCHMARKS[l["benchmark"]].area if l["benchmark"] in BENCHMARKS else "?"]
        a["launches"] += 1
        a["estimate"] += l.get("estimate_s") or 0.0
        a["elapsed"] += l.get("elapsed_s") or 0.0
        a["ranks"] = max(a["ranks"], l.get("nranks") or 0)
        a["status"][l["status"]] += 1
    return sorted(areas.items())


def predictions(db: Path, run: str) -> dict:
    p = subprocess.run([*HPCEVAL, "predict", "--run", run, "--db", str(db), "--json"],
                       cwd=ROOT, capture_output=True, text=True)
    return json.loads(p.stdout) if p.returncode == 0 else {"error": p.stderr.strip()}


def report(run: dict, pred: dict, measured: dict) -> None:
    total_est = sum(l.get("estimate_s") or 0 for l in run["launches"])
    total_el = sum(l.get("elapsed_s") or 0 for l in run["launches"])
    print(f"run {run['id']}: {run['status']}, {len(run['launches'])} launches, "
          f"{len(run['records'])} records; budget {run['settings'].get('budget_s')} s; "
          f"launches estimated {total_est:.0f} s, took {total_el:.0f} s "
          f"({100 * (total_el / total_est - 1):+.0f}%)" if total_est else "")
    if measured:
        print(f"wall {measured['wall_s']} s, peak memory {measured['peak_mib']} MiB, "
              f"exit {measured['exit']}" + (f": {measured['error']}" if measured['error'] else ""))
    print("\n| area | launches | estimate [s] | elapsed [s] | largest ranks | outcomes |")
    print("|---|---|---|---|---|---|")
    for area, a in area_rows(run):
        outcomes = ", ".join(f"{n} {s}" for s, n in a["status"].most_common())
        print(f"| {area} | {a['launches']} | {a['estimate']:.0f} | {a['elapsed']:.0f} | "
              f"{a['ranks']} | {outcomes} |")
    reach = defaultdict(int)
    for l in run["launches"]:
        if l["status"] == "ok":
            reach[l["benchmark"]] = max(reach[l["benchmark"]], l.get("nranks") or 0)
    print("\nlargest rank count measured (ok launches): "
          + ", ".join(f"{b} {n}" for b, n in sorted(reach.items(), key=lambda x: (-x[1], x[0]))))
    left = run["settings"].get("left_out") or []
    if left:
        print(f"\nleft out: {len(left)}: " + "; ".join(map(str, left[:10])))
    if "error" in pred:
        print(f"\npredict --run: {pred['error']}")
        return
    print("\n| proxy | configuration | ranks | predicted | measured | error |")
    print("|---|---|---|---|---|---|")
    for c in pred["checked"]:
        conf = ", ".join(f"{k}={v}" for k, v in c["config"].items())
        for r in c["rows"]:
            print(f"| {c['proxy']} | {conf} | {r['ranks']} | {r['predicted']:.4g} {c['unit']} | "
                  f"{r['measured']:.4g} | {100 * r['error']:+.1f}% |")
        if c["skipped"]:
            print(f"| {c['proxy']} | {conf} | - | - | - | no prediction: {c['skipped']} |")
    mae = pred.get("median_abs_error")
    print(f"\nmedian absolute error: {'-' if mae is None else f'{100 * mae:.1f}%'}")


def costs(db: Path, build: str) -> None:
    """What the store has learned a result costs the simulation, per kind (hpceval/simulate/
    cost.py: wall seconds a result a busy rank, as at REF_RANKS), beside what the benchmarks
    declare for a store that has learned none."""
    from hpceval.catalog.registry import sim_declared
    from hpceval.simulate.cost import DEFAULT_PER_RESULT_S, growth_per_rank, learned
    from hpceval.store import Store
    declared, busy = sim_declared()
    store = Store(db)
    try:
        bindir = ROOT / "build-smpi" / "bin" if not build else None
        got = learned(store, socket.gethostname(), busy, growth_per_rank(bindir))
    finally:
        store.close()
    print("\n| kind | learned [s a result a busy rank] | declared |")
    print("|---|---|---|")
    for kind, cost in sorted(got.items()):
        print(f"| {kind} | {cost:.3g} | {declared.get(kind, DEFAULT_PER_RESULT_S):.3g}"
              f"{'' if kind in declared else ' (default)'} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--simulate", default="nodes=64,ppn=16")
    ap.add_argument("--budget", default="1h")
    ap.add_argument("--db", type=Path)
    ap.add_argument("--analyse", type=Path, metavar="DB", help="report on a study already run")
    ap.add_argument("--run", default="latest")
    ap.add_argument("--build", default="", help="a named SMPI build (hpceval build --name)")
    args = ap.parse_args()
    measured = {}
    if args.analyse:
        db = args.analyse
    else:
        db = args.db or Path(tempfile.mkdtemp()) / "study.sqlite"
        measured = run_study(args.simulate, args.budget, db, args.build)
    run = export(db, args.run)
    report(run, predictions(db, args.run), measured)
    costs(db, args.build)
    return 0


if __name__ == "__main__":
    sys.exit(main())
