"""hpceval show: one run, its fingerprint and results."""
from __future__ import annotations

import argparse
import sys

from rich.markup import escape

from hpceval.analysis import bisection, congestion
from hpceval.analysis.card import machine_card
from hpceval.analysis.nodes import FINDING, node_lines
from hpceval.analysis.outliers import outlier_lines, outliers
from hpceval.analysis.perfvars import perf_lines
from hpceval.cli.cardview import card_table
from hpceval.cli.common import add_db, console, fmt_value, headline_table, open_store, print_rows, printable
from hpceval.quality import field, verdict
from hpceval.cli.cmd_machine import fingerprint_table
from hpceval.cli.summaryview import summary_table, warning_lines
from hpceval.store import dump_json
from hpceval.simulate import mark

NAME = "show"
HELP = "show one run: machine card, fingerprint, headline figures and every result"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN", help="run id, uuid prefix or 'latest'")
    add_db(p)
    p.add_argument("--json", action="store_true", help="print the run in the export format")
    p.add_argument("--all", action="store_true",
                   help="after the summary: machine card, fingerprint, headline figures, every result and launch")
    p.add_argument("--perf", action="store_true",
                   help="the run's status and its headline figures as named performance variables, "
                        "one 'hpceval-perf NAME VALUE UNIT BETTER' line each (ReFrame: packaging/reframe)")


def execute(args: argparse.Namespace) -> int:
    store = open_store(args)
    run = store.get_run(store.resolve(args.run), traces=args.json, samples=args.json)
    if args.json:
        dump_json({**run, "outliers": outliers(run)}, sys.stdout, indent=2)
        return 0
    if args.perf:
        print(f"hpceval-run {run['id']} {run['status']}")
        print("\n".join(perf_lines(run["records"])))
        return 0
    con = console()
    tags = printable(", ".join(run["tags"])) or "-"
    con.print(escape(f"run {run['id']}  {run['suite']}  {run['status']}  started {run['started']}"
                     f"  finished {run['finished'] or '-'}  tags: {tags}"))
    job = run["settings"].get("slurm") or {}
    if job.get("job_id"):
        con.print(escape(f"Slurm job {job['job_id']}  partition {job.get('partition') or '-'}  "
                         f"nodes {job.get('nodelist') or '-'}  {job.get('version') or ''}"))
    con.print(summary_table(run))
    timed = [l for l in run["launches"] if l.get("estimate_s") is not None]
    if timed:
        con.print(f"launches: estimated {sum(l['estimate_s'] for l in timed):.1f} s, took "
                  f"{sum(l['elapsed_s'] or 0 for l in timed):.1f} s ({len(timed)} launches)")
    for line in warning_lines(run):
        con.print(line)
    for line in outlier_lines(run):
        con.print(escape(line), style="bold red" if "OUTLIER" in line else None)
    for line in bisection.lines(run) + congestion.lines(run):
        con.print(escape(line))
    if not args.all:
        con.print(f"[dim]{len(run['records'])} results in {len(run['launches'])} launches: --all "
                  "lists them with the machine card and fingerprint.[/dim]")
        return 0
    con.print(card_table(machine_card(run), "machine card"))
    con.print(fingerprint_table(run["fingerprint"]))
    for line in node_lines(run):
        con.print(escape(line), style="bold red" if line.startswith(FINDING) else None)
    card = headline_table(run["records"], "headline figures", width=con.width)
    con.print(card)
    rows = []
    for r in run["records"]:
        s = r["stats"]
        params = " ".join(f"{k}={v}" for k, v in r["params"].items())
        dropped = field(r, "dropped") or 0
        rows.append([r["benchmark"], params, r["metric"], r["unit"] + mark.tag(r), r["statistic"],
                     str(s["n"]) + (f" (+{dropped} set aside)" if dropped else ""),
                     *(fmt_value(s[k]) if s.get(k) is not None else "-"
                       for k in ("min", "median", "p90", "p99", "max", "mean")),
                     "-" if s.get("cv") is None else f"{100 * s['cv']:.1f}%",
                     f"{fmt_value(s['ci_low'])}..{fmt_value(s['ci_high'])}", verdict(r)])
    print_rows(con, "results (n: samples kept, '+k set aside': preempted samples left out; p50: "
               "the median; p90, p99 from the stored samples, '-' for a point stored without "
               "them; CV: stddev / mean)",
               ["benchmark", "params", "metric", "unit", "stat", "n", "min", "p50", "p90", "p99",
                "max", "mean", "CV", "95% CI", "quality"], rows)
    for l in run["launches"]:
        line = f"{l['label']}: {l['status']} ({_took(l)}) $ {l['command']}"
        if l["message"]:
            line += f"\n    {l['message']}"
        for w in l["warnings"]:
            line += f"\n    warning: {w}"
        con.print(escape(line))
    return 0


def _took(launch) -> str:
    """A launch's elapsed time beside its estimate, where the plan made one (#45)."""
    est = launch.get("estimate_s")
    return f"{launch['elapsed_s']} s" + (f", estimate {est} s" if est is not None else "")
