"""hpceval predict: an application proxy's time per iteration (step, cycle) and its parts on any
rank count, from a machine's measured parameters; against measured runs of the same
configuration where they exist (docs/models.md)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from hpceval.cli.common import add_db, console, declared, fmt_value, one_of, open_store
from hpceval.catalog.params import ascii_int
from hpceval.outfiles import check_output_dir, output_errors
from hpceval.errors import UsageError

NAME = "predict"
HELP = ("predict a proxy's time per iteration and its parts (compute, messages, collectives) on "
        "any rank count from a machine's measured parameters, and compare with measured runs")
EXTRAPOLATE = [64, 128, 256, 512, 1024, 4096, 16384, 65536, 100000]


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_db(p)
    p.add_argument("proxy", nargs="?", default=None,
                   help=one_of(declared("model")) + " (with --run: only this one)")
    p.add_argument("--run", metavar="RUN", default=None,
                   help="every proxy with a model that this run measured (id, uuid or 'latest'): "
                        "predicted against measured at every rung it measured")
    p.add_argument("--ranks", default="1,2,4", metavar="LIST", help="rank counts, comma list "
                   "(default 1,2,4)")
    p.add_argument("--grid", default=None, help="the problem's global grid (barotropic NXxNY, "
                   "sweep IxJxK, evh1 NXxNYxNZ)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="another model option (see the error for the names), repeatable")
    p.add_argument("--machine", metavar="RUN", default=None, help="take the parameters from "
                   "this run's machine (id, uuid or 'latest'; default: the newest run's)")
    p.add_argument("--extrapolate", action="store_true",
                   help=f"add {EXTRAPOLATE[0]}..{EXTRAPOLATE[-1]} ranks")
    p.add_argument("--json", action="store_true", help="the rows as JSON")
    p.add_argument("--figures", metavar="DIR", default=None, help="save the figure (SVG, PNG)")


def _ranks(text: str) -> list:
    try:
        ranks = [ascii_int(x.strip()) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--ranks {text}: expected positive integers, comma-separated") from None
    if not ranks or min(ranks) < 1 or max(ranks) > 10**7:
        raise UsageError(f"--ranks {text}: expected positive integers up to 10^7, comma-separated")
    return sorted(set(ranks))


def _options(am, args) -> dict:
    if args.grid and "grid" not in {p.name for p in am.options}:
        raise UsageError(f"--grid: {am.name} has no grid option")
    opts = {"grid": args.grid} if args.grid else {}
    for item in args.set:
        k, sep, v = item.partition("=")
        if not sep:
            raise UsageError(f"--set {item}: expected NAME=VALUE")
        opts[k] = v
    return opts


def execute(args: argparse.Namespace) -> int:
    from hpceval.analysis.predict import machine_params, model, predict
    from hpceval.analysis.predict.machine import grouped_sources
    from hpceval.analysis.predict.model import read_options
    if args.run:
        return _against_run(args)
    if not args.proxy:
        raise UsageError("give a proxy to predict, or --run RUN to check every model against a run")
    am = model(args.proxy)
    ranks = _ranks(args.ranks) + (EXTRAPOLATE if args.extrapolate else [])
    cfg = read_options(am, _options(am, args))
    if args.figures:
        check_output_dir(args.figures, "--figures")
    store = open_store(args)
    runs = [store.get_run(i, traces=False) for i in store.run_ids()]
    wanted = store.resolve(args.machine) if args.machine else None
    machine = next((r for r in runs if r["id"] == wanted), None)
    m = machine_params(runs, machine)
    rows = predict(am, cfg, sorted(set(ranks)), m)
    if args.json:
        json.dump({"model": am.name, "unit": am.unit, "config": cfg, "machine": m.fingerprint,
                   "sources": grouped_sources(m.sources),
                   "rows": [{"ranks": r.nranks, "grid": m.layouts.get((am.name, r.nranks)),
                             "parts": r.parts, "predicted": r.total, "measured": r.measured,
                             "measured_in_run": r.measured_in, "error": r.error} for r in rows]},
                  sys.stdout, indent=1)
        print()
    else:
        _print(am, cfg, rows, m)
    if args.figures:
        _figures(am, cfg, rows, m, Path(args.figures))
    return 0


def _print(am, cfg, rows, m) -> None:
    from hpceval.views.figures_models import crossover
    t = Table(title=f"{am.name} ({', '.join(f'{k}={v}' for k, v in cfg.items())}) on "
                    f"{m.fingerprint}, {am.unit}", title_justify="left")
    for col in ("ranks", "grid", *rows[0].parts, "predicted", "measured", "error"):
        t.add_column(escape(col), justify="left" if col == "grid" else "right")
    for r in rows:
        t.add_row(str(r.nranks), m.layouts.get((am.name, r.nranks), ""),
                  *(fmt_value(v) for v in r.parts.values()), fmt_value(r.total),
                  fmt_value(r.measured) if r.measured else "-",
                  f"{100 * r.error:+.1f}%" if r.error is not None else "-")
    con = console()
    con.print(t)
    from hpceval.analysis.predict.machine import grouped_sources
    for k, v in grouped_sources(m.sources).items():
        con.print(f"  {escape(k)}: {escape(v)}")
    cross = crossover(am, rows)
    con.print(f"  communication exceeds computation from {cross} ranks" if cross else
              "  computation dominates at every rank count shown")


def _figures(am, cfg, rows, m, out: Path) -> None:
    from hpceval.views.plot import save
    from hpceval.views.figures_models import draw
    near = [r for r in rows if r.nranks < EXTRAPOLATE[0]] or rows[:4]
    with output_errors("--figures"):
        written = save(draw(am, near, rows, f"{am.name} on {m.fingerprint}"),
                       out / f"predict-{am.name}")
    print(f"wrote {len(written)} figure files to {out}")


def _against_run(args: argparse.Namespace) -> int:
    from hpceval.analysis.predict import model
    from hpceval.analysis.predict.against import against_run, median_abs_error
    proxies = [model(args.proxy).name] if args.proxy else None
    store = open_store(args)
    run = store.get_run(store.resolve(args.run), traces=False)
    runs = [store.get_run(i, traces=False) for i in store.run_ids() if i != run["id"]]
    checked = against_run(run, runs, proxies)
    if args.json:
        json.dump({"run": run["id"], "median_abs_error": median_abs_error(checked),
                   "checked": [{"proxy": c.proxy, "config": c.config, "unit": c.unit,
                                "skipped": c.skipped,
                                "rows": [{"ranks": r.nranks, "grid": c.layouts.get(r.nranks),
                                          "predicted": r.total, "measured": r.measured,
                                          "error": r.error} for r in c.rows]}
                               for c in checked]}, sys.stdout, indent=1)
        print()
        return 0
    _print_against(run, checked, median_abs_error(checked))
    return 0


def _print_against(run: dict, checked, mae) -> None:
    con = console()
    t = Table(title=f"run {run['id']}: every model against what the run measured",
              title_justify="left")
    for col in ("proxy", "configuration", "ranks", "grid", "predicted", "measured", "error"):
        t.add_column(col, justify="left" if col in ("proxy", "configuration", "grid") else "right")
    for c in checked:
        conf = escape(", ".join(f"{k}={v}" for k, v in c.config.items()))
        for r in c.rows:
            t.add_row(c.proxy, conf, str(r.nranks), c.layouts.get(r.nranks, ""),
                      f"{fmt_value(r.total)} {c.unit}", fmt_value(r.measured),
                      f"{100 * r.error:+.1f}%")
    con.print(t)
    for c in checked:
        if c.skipped:
            con.print(f"  {c.proxy} ({escape(', '.join(f'{k}={v}' for k, v in c.config.items()))}):"
                      f" no prediction: {escape(c.skipped)}")
    if not checked:
        con.print(f"  run {run['id']} measured no proxy with a model on more than one rank")
    elif mae is not None:
        con.print(f"  median absolute error: {100 * mae:.1f}% over "
                  f"{sum(len(c.rows) for c in checked)} rungs")
