#!/usr/bin/env python3
"""How often `hpceval history --check` catches a planted step, and how often it raises a false
alert (issue #52, item 3).

Series of 30 runs are built from recorded real noise: the per-point samples of real stored runs
(`--db`, e.g. two `hpceval run quick`). Each synthetic run of a series takes one point (the
same benchmark, metric and params throughout), picks one of the real runs at random and
resamples that run's samples of the point with replacement; its stats are recomputed from them
(median, its 95% CI by binomial order statistics, p90, p99, CV), its disturbance and convergence
flags stay the real record's. From a random run k (10..27) on, every sample is made slower by
the step (a time times 1 + s, a rate divided by it). Each series is imported into its own
scratch database (`hpceval import`) and `hpceval history --check` runs on it as a nightly job
would after each run (every run of a series carries a tag for each prefix it belongs to):

- a step series is *caught* when --check exits 1 after run k, k + 1 or k + 2;
- a clean series (no step) has a *false alert* for every run after which --check exits 1
  (checked after runs 4..30).

    python3 benchmarks/history_rates.py --db REAL.sqlite [--series 20] [--steps 5,10,20]
                                        [--threshold F] [--as-quiet]

--check never judges a latest point that is disturbed or unconverged (not comparable);
`--as-quiet` clears those flags on every record, to measure the method alone.

The checks run in this process through hpceval's command-line entry (`hpceval.cli.main`), the
code `hpceval history --check` runs, without starting Python 540 times."""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from hpceval.cli import main as hpceval  # noqa: E402
from hpceval.quality import disturbed  # noqa: E402

RUNS, WITHIN, FIRST_STEP, FIRST_CHECK = 30, 3, 10, 3


def real_points(db: str):
    """{point key: (record, [sample lists, one per real run])} for the points that every
    real run measured with 6 samples or more."""
    out = subprocess.run([sys.executable, "-m", "hpceval", "export", "--db", db, "--format",
                          "json"], capture_output=True, text=True, check=True, cwd=ROOT)
    runs = json.loads(out.stdout)
    points = {}
    for run in runs:
        for rec in run["records"]:
            if len(rec.get("samples") or []) >= 6 and rec["stats"]["n"] >= 6:
                key = json.dumps([rec["benchmark"], rec["metric"], rec["params"]], sort_keys=True)
                points.setdefault(key, (run, rec, []))[2].append(rec)
    return runs, {k: v for k, v in points.items() if len(v[2]) == len(runs)}


def stats(x: np.ndarray, n: int) -> dict:
    s = np.sort(x)
    m = len(s)
    lo, hi = max(0, m // 2 - int(1.96 * m ** 0.5 / 2)), min(m - 1, m // 2 + int(1.96 * m ** 0.5 / 2))
    mean = float(x.mean())
    return {"n": n, "min": float(s[0]), "median": float(np.median(x)),
            "mean": min(max(mean, float(s[0])), float(s[-1])), "max": float(s[-1]),
            "stddev": float(x.std(ddof=1)), "ci_low": float(s[lo]), "ci_high": float(s[hi])}


def quiet(rec: dict) -> dict:
    """The record as an undisturbed, converged one's (--as-quiet)."""
    rec = {**rec, "converged": True, "extra": dict(rec.get("extra") or {})}
    for where in (rec, rec["extra"]):
        where.pop("disturbed", None)
    return rec


def series_runs(rng, template, recs, step: float, k: int, sid: str) -> list:
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    out = []
    for i in range(RUNS):
        real = recs[rng.integers(len(recs))]
        x = rng.choice(np.asarray(real["samples"], dtype=float), size=len(real["samples"]))
        if i >= k and step:
            x = x * (1 + step) if real["better"] == "lower" else x / (1 + step)
        rec = {**real, "samples": x.tolist(), "stats": stats(x, max(real["stats"]["n"], len(x)))}
        when = (t0 + timedelta(hours=i)).isoformat()
        out.append({**template, "id": i + 1, "uuid": str(uuid.UUID(int=int(rng.integers(2**63)))),
                    "started": when, "finished": when, "tags": [f"{sid}-{m}" for m in range(i, RUNS)],
                    "launches": [], "records": [rec], "traces": []})
    return out


def check(db: Path, sid: str, m: int, rec: dict, threshold: float) -> bool:
    """Whether `hpceval history --check` over runs 0..m of the series exits 1."""
    argv = ["history", "--check", "--json", "--threshold", str(threshold), "--db", str(db),
            "--tag", f"{sid}-{m}",
            "--benchmark", rec["benchmark"], "--metric", rec["metric"]]
    for name, v in rec["params"].items():
        argv += ["--param", f"{name}={v}"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = hpceval(argv)
    assert code in (0, 1), (argv, code)
    return code == 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="real runs whose points kept their samples")
    ap.add_argument("--series", type=int, default=20, help="series per step size and clean")
    ap.add_argument("--steps", default="5,10,20", help="planted steps in percent")
    ap.add_argument("--seed", type=int, default=52)
    ap.add_argument("--threshold", type=float, default=0.10, help="history's --threshold")
    ap.add_argument("--as-quiet", action="store_true",
                    help="clear every record's disturbed and unconverged flags: the method alone "
                         "(--check never judges a disturbed or unconverged latest point)")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    runs, points = real_points(a.db)
    keys = sorted(points)
    print(f"{len(runs)} real runs, {len(keys)} points with samples in every run "
          f"({sum(bool(disturbed(r)) for k in keys for r in points[k][2])} of "
          f"{len(keys) * len(runs)} records disturbed, "
          f"{sum(r.get('converged') is False for k in keys for r in points[k][2])} unconverged)")
    if a.as_quiet:
        points = {k: (t, quiet(rec), [quiet(r) for r in recs]) for k, (t, rec, recs) in points.items()}
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for step in [0.0] + [float(s) / 100 for s in a.steps.split(",")]:
            hits, alerts, checks, flagged = 0, 0, 0, 0
            for j in range(a.series):
                key = keys[rng.integers(len(keys))]
                template, rec, recs = points[key]
                k = int(rng.integers(FIRST_STEP, RUNS - WITHIN + 1)) if step else RUNS
                sid = f"s{int(step * 100)}n{j}"
                f = Path(tmp) / f"{sid}.json"
                f.write_text(json.dumps(series_runs(rng, template, recs, step, k, sid)))
                db = Path(tmp) / f"{sid}.sqlite"
                with contextlib.redirect_stdout(io.StringIO()):
                    assert hpceval(["import", str(f), "--db", str(db)]) == 0
                if step:
                    hits += any(check(db, sid, m, rec, a.threshold) for m in range(k, k + WITHIN))
                else:
                    got = sum(check(db, sid, m, rec, a.threshold) for m in range(FIRST_CHECK, RUNS))
                    alerts, checks, flagged = alerts + got, checks + RUNS - FIRST_CHECK, flagged + bool(got)
            if step:
                results[f"{step:.0%} step"] = f"caught within {WITHIN} runs in {hits} of {a.series} series"
            else:
                results["clean"] = (f"{alerts} false alerts in {checks} checks of {a.series} series "
                                    f"({flagged} series with any)")
            print(f"{'clean' if not step else f'{step:.0%} step'}: "
                  f"{results['clean' if not step else f'{step:.0%} step']}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
