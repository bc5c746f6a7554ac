"""hpceval experiment: measure one benchmark under several variants, interleaved, and say which
differences are significant (docs/experiments.md)."""
from __future__ import annotations

import argparse

from hpceval.cli.common import (add_db, console, db_path, print_rows, tag_text, timeout_seconds,
                                 whole_number)
from hpceval.errors import BenchmarkFailed, UsageError
from hpceval.launch import CHOICES, find_launcher

NAME = "experiment"
HELP = ("measure one benchmark under several variants (binding, copies, sharing, pages, builds, "
        "...: 'hpceval experiment --help'), interleaved")


def _kinds() -> str:
    """The registered kinds with their descriptions: the help says what exists."""
    from hpceval.experiment import EXPERIMENTS
    return "; ".join(f"{e.name}: {e.description}" for e in sorted(EXPERIMENTS.values(),
                                                                    key=lambda e: e.name))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("kind", metavar="KIND", help=_kinds())
    p.add_argument("benchmark", metavar="BENCHMARK", help="see 'hpceval list'")
    p.add_argument("--variants", default="", metavar="A,B,...",
                   help="the variants, the baseline first (binding: consecutive,alternating,"
                        "default,none; copies: counts, 'max', 'sweep'; sharing: one and "
                        "P:block|interleaved|default; pages: base,thp,huge)")
    p.add_argument("--rounds", type=whole_number, default=5, metavar="R",
                   help="times every variant is measured, interleaved A B C A B C ... (default 5; "
                        "at least 4 for a significance test at p < 0.05)")
    p.add_argument("--np", type=whole_number, default=None, metavar="N",
                   help="MPI ranks (binding, pages; copies and sharing choose their own)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="sets",
                   help="set a benchmark parameter")
    p.add_argument("--oversubscribe", action="store_true",
                   help="copies: allow more copies than cores (timings disturbed)")
    add_db(p)
    p.add_argument("--launcher", choices=CHOICES, default="auto", help="MPI launcher")
    p.add_argument("--tag", action="append", default=[], type=tag_text, metavar="TEXT", help="label the run")
    p.add_argument("--timeout", type=timeout_seconds, default=None, metavar="S",
                   help="time limit per launch in seconds (default: from the plan)")
    p.add_argument("--figures", metavar="DIR", default=None,
                   help="also save the experiment's figure as SVG and PNG in DIR")


def _plan(args: argparse.Namespace):
    """Every variant planned and checked; nothing is stored before this succeeds."""
    from hpceval import paths
    from hpceval.catalog import BENCHMARKS
    from hpceval.experiment import Setup, experiment
    from hpceval.experiment.plan import interleave, plan_variants
    from hpceval.runner import plan_context
    from hpceval.runner.placement import check_request

    experiment(args.kind)
    if args.benchmark not in BENCHMARKS:
        raise UsageError(f"unknown benchmark '{args.benchmark}' (known: "
                         f"{', '.join(sorted(BENCHMARKS))})")
    check_request(None, None, args.np)
    if args.figures:
        from hpceval.outfiles import check_output_dir
        check_output_dir(args.figures, "--figures")
    ctx = plan_context(args.np)
    setup = Setup(args.benchmark, list(args.sets), ctx, find_launcher(args.launcher, ctx.cores),
                  args.oversubscribe)
    variants = plan_variants(args.kind, args.variants, setup)
    steps = interleave(variants, args.rounds)
    for spec in {(s.binary, s.env.get("HPCEVAL_BINDIR")) for step in steps for s in step.group}:
        paths.binary(*spec)
    return setup, variants, steps


def execute(args: argparse.Namespace) -> int:
    from hpceval.experiment import experiment
    from hpceval.experiment.run import run_experiment
    from hpceval.store import Store

    setup, variants, steps = _plan(args)
    for note in setup.notes:
        console().print(f"note: {note}", highlight=False)
    settings = {"kind": args.kind, "benchmark": args.benchmark, "rounds": args.rounds,
                "variants": [v.name for v in variants], "sets": list(args.sets), "np": args.np,
                "notes": setup.notes, "test": "Mann-Whitney U, two-sided, p < 0.05",
                "combine": experiment(args.kind).combine}
    run_id, failures = run_experiment(db_path(args), setup.launcher, steps, settings, args.tag,
                                      args.timeout)
    store = Store(db_path(args))
    run = store.get_run(run_id, traces=False)
    store.close()
    _summary(run)
    if args.figures:
        _figures(run, args.figures)
    print(f"run id: {run_id}  ({len(run['records'])} records in {db_path(args)})")
    if failures:
        raise BenchmarkFailed(f"run {run_id} failed: " + "; ".join(failures))
    return 0


def _summary(run: dict) -> None:
    from hpceval.experiment.figures import experiment_table
    table = experiment_table(run)
    if table is None or not table.rows:
        return
    main = {r["metric"] for r in run["records"] if r.get("better") == "higher"} or None
    rows = [[str(c) for c in row] for row in table.rows if main is None or row[0] in main]
    print_rows(console(), f"run {run['id']}: {run['suite']}", table.columns, rows,
               right=("samples", "median", "ratio to baseline", "p"))
    print(table.note)


def _figures(run: dict, directory: str) -> None:
    from pathlib import Path

    from hpceval.report.areas import FIGURES
    from hpceval.views.plot import make_figure
    from hpceval.report.trends import save_all

    made = [(f"run{run['id']}-{spec.make.__name__}", make_figure(spec, [run]))
            for spec in FIGURES if spec.section == "Experiments"]
    for path in save_all([(s, f) for s, f in made if f is not None], Path(directory)):
        print(f"wrote {path}")
