#!/usr/bin/env python3
"""Why five launches of a 16 KiB ping-pong do not agree within 5% on this VM, and what the
harness sees of it: each launch is a timeline of short points (the same sizes measured again and
again in one launch), so a state that holds for seconds, within a launch and across launches,
shows as such, beside the harness's verdict on each point (a slowed core, a moved pair: `quiet`
in docs/records.md); OSU's osu_latency can alternate with the launches, and Open MPI's settings
can change the copy path.

    python3 benchmarks/launch_states.py [--launches 10] [--windows 20] [--budget 0.1]
        [--sizes 8,16K,1M] [--mca btl_vader_eager_limit=32768 ...] [--osu DIR] [--quiet]

Each launch runs `hpceval-pingpong --sizes S1,S2,..,S1,S2,.. --refine 0 --budget B` (W windows,
each size's point calibrated and sampled afresh) under `mpirun --bind-to core -np 2`. Per launch
and size it prints the median of the windows' medians and their range, how many points the
harness called disturbed, and the pair's cache-line round trip; then per size the launches'
medians, their max/min and how many lie within 5% of the median launch, and the same for the
points it called clean, a line per placement of the pair (round trip within 1.6x of the
fastest, or beyond). --osu DIR
runs DIR/osu_latency -m N:N for the second size after each launch (OSU 7.4, built outside the
repository, never committed). Python only starts the programs and reads their output."""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers_ab  # noqa: E402  (run, table_value, MPIRUN, BIN)

UNITS = {"K": 1 << 10, "M": 1 << 20}


def size(text: str) -> int:
    return int(text[:-1]) * UNITS[text[-1]] if text[-1] in UNITS else int(text)


def timeline(sizes: List[int], windows: int, budget: float, mca: List[str]) -> Dict[int, List[dict]]:
    """One launch: size -> its W points' records, in order."""
    opts = [a for kv in mca for a in ("--mca", *kv.split("=", 1))]
    cmd = peers_ab.MPIRUN + opts + [str(peers_ab.BIN / "hpceval-pingpong"), "--refine", "0",
                                    "--budget", str(budget),
                                    "--sizes", ",".join(map(str, sizes * windows))]
    out = {n: [] for n in sizes}
    for line in peers_ab.run(cmd).splitlines():
        r = json.loads(line) if line.startswith("{") else {}
        if r.get("type") == "result" and r["metric"] == "latency":
            out[r["params"]["bytes"]].append(r)
    return out


def med(points: List[dict]) -> float:
    return statistics.median(r["stats"]["median"] for r in points)


def line_ns(points: List[dict]) -> float:
    return statistics.median(r["quiet"].get("pair_line_ns", 0) for r in points)


def clean_by_place(launches: List[List[dict]]) -> Dict[str, List[float]]:
    """Each launch's clean points' median, grouped by where the pair sat (near: its line went
    round within 1.6x of the fastest launch's, as the harness judges a moved pair)."""
    clean = [[r for r in pts if not r["disturbed"]] for pts in launches]
    clean = [pts for pts in clean if pts]
    if not clean:
        return {}
    nearest = min(line_ns(pts) for pts in clean)
    out: Dict[str, List[float]] = {}
    for pts in clean:
        place = "near" if line_ns(pts) < 1.6 * nearest else "far"
        out.setdefault(place, []).append(med(pts))
    return out


def summary(name: str, medians: List[float]) -> str:
    mid = statistics.median(medians)
    near = sum(abs(m / mid - 1) <= 0.05 for m in medians)
    return (f"{name:>14}: launches' medians {min(medians):.3f}-{max(medians):.3f} us, "
            f"max/min {max(medians) / min(medians):.3f}, {near} of {len(medians)} within 5% "
            f"of the median launch ({mid:.3f} us)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--launches", type=int, default=10)
    ap.add_argument("--windows", type=int, default=20)
    ap.add_argument("--budget", type=float, default=0.1)
    ap.add_argument("--sizes", default="8,16K,1M")
    ap.add_argument("--mca", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--osu", type=Path, help="a directory holding osu_latency")
    ap.add_argument("--quiet", action="store_true", help="the machine was idle")
    a = ap.parse_args()
    sizes = [size(s) for s in a.sizes.split(",")]
    probe = sizes[1] if len(sizes) > 1 else sizes[0]
    per_size: Dict[int, List[List[dict]]] = {n: [] for n in sizes}
    osu: List[float] = []
    print(f"{a.launches} launches of {a.windows} windows, {a.budget} s a point, "
          f"mca {a.mca or 'as installed'}; machine {'idle' if a.quiet else 'shared'}")
    for i in range(a.launches):
        line = timeline(sizes, a.windows, a.budget, a.mca)
        cells = []
        for n, pts in line.items():
            per_size[n].append(pts)
            ts = [r["stats"]["median"] for r in pts]
            hit = sum(bool(r["disturbed"]) for r in pts)
            cells.append(f"{n} B {med(pts):.3f} [{min(ts):.2f}-{max(ts):.2f}] "
                         f"{hit}/{len(pts)} disturbed, line {line_ns(pts):.0f} ns")
        if a.osu:
            osu.append(peers_ab.table_value(peers_ab.MPIRUN + [
                str(a.osu / "osu_latency"), "-m", f"{probe}:{probe}"], probe)())
            cells.append(f"OSU {probe} B {osu[-1]:.2f}")
        print(f"launch {i + 1:2}: " + "; ".join(cells), flush=True)
    for n, launches in per_size.items():
        print(summary(f"{n} B", [med(pts) for pts in launches]))
        for place, medians in clean_by_place(launches).items():
            print(summary(f"clean, {place}", medians))
    if osu:
        print(summary(f"OSU {probe} B", osu))


if __name__ == "__main__":
    main()
