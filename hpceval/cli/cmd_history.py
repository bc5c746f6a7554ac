"""hpceval history: one machine's metrics over time, with change points; --check for a nightly job."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from hpceval.cli.cardview import pct
from hpceval.cli.common import add_db, ascii_number, console, fmt_value, open_store
from hpceval.cli.junit import junit_xml
from hpceval.outfiles import check_output_dir, check_output_file, output_errors, write_text_whole
from hpceval.errors import HpcevalError, UsageError
from hpceval.store import dump_json
from hpceval.store.samples import POINT_STATS

NAME = "history"
HELP = ("one machine's metrics over its runs: value, best and spread per run, steps and "
        "variability changes; --check exits 1 when the latest run regressed")


class Regressed(HpcevalError):
    exit_code = 1


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_db(p)
    p.add_argument("--benchmark", metavar="B", help="every point of this benchmark (default: headline figures)")
    p.add_argument("--metric", metavar="M", help="only this metric")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="only points with this parameter value (repeatable)")
    p.add_argument("--tag", metavar="T", help="the runs carrying this tag (default: the latest run's machine)")
    p.add_argument("--machine", metavar="HASH", help="fingerprint hash (prefix) of the machine")
    p.add_argument("--stat", choices=POINT_STATS, default=None,
                   help="follow this statistic of each point instead of its own (the median for "
                        "most): p50, p90, p99 (from the stored samples), cv (stddev / mean), "
                        "min, max, mean")
    p.add_argument("--threshold", type=ascii_number, default=0.10, metavar="FRACTION",
                   help="relative change that counts as a step or regression (default 0.10)")
    p.add_argument("--check", action="store_true", help="exit 1 if the latest run regressed beyond the threshold")
    p.add_argument("--junit", metavar="FILE", default=None,
                   help="also write JUnit XML for CI: a test case per metric, a failure per "
                        "regression (docs/ci.md)")
    p.add_argument("--json", action="store_true", help="the series as JSON")
    p.add_argument("--figures", metavar="DIR", default=None, help="save a figure per metric (SVG, PNG)")
    p.add_argument("--pdf", action="store_true", help="with --figures: PDF too")


def _params(items):
    out = {}
    for item in items:
        k, sep, v = item.partition("=")
        if not sep or not k:
            raise UsageError(f"--param {item}: expected NAME=VALUE")
        out[k] = v
    return out


def execute(args: argparse.Namespace) -> int:
    if not 0 < args.threshold < 10:
        raise UsageError(f"--threshold {args.threshold:g}: must be a fraction > 0 (0.1 = 10%)")
    if args.pdf and not args.figures:
        raise UsageError("--pdf needs --figures DIR")
    if args.figures:
        check_output_dir(args.figures, "--figures")
    if args.junit:
        check_output_file(args.junit, "--junit", "xml")
    if args.tag is not None and args.machine is not None:
        raise UsageError("--tag and --machine choose the runs two ways: give one")
    from hpceval.analysis.history import Settings, history, regressions   # numpy: only when run
    store = open_store(args)
    runs = [store.get_run(i, traces=False) for i in store.run_ids()]
    if not runs:
        raise UsageError(f"no runs stored in {store.path}")
    series = history(runs, benchmark=args.benchmark, metric=args.metric, params=_params(args.param),
                     fingerprint=args.machine, tag=args.tag, settings=Settings(threshold=args.threshold),
                     stat=args.stat)
    if not series:
        wanted = " ".join([f"--benchmark {args.benchmark}"] * bool(args.benchmark)
                          + [f"--metric {args.metric}"] * bool(args.metric)
                          + [f"--param {p}" for p in args.param])
        what = (f"matches {wanted}" if wanted else "has a headline figure")
        if args.stat:
            what += f" with a {args.stat} (p90 and p99: points stored with their samples)"
        raise UsageError(f"no point in the chosen machine's runs {what} (see 'hpceval show')")
    if args.json:
        dump_json([{**x.__dict__, "changes": [c.as_dict() for c in x.changes]} for x in series],
                         sys.stdout)
    else:
        con = console()
        nruns = len({p["run"] for x in series for p in x.points})
        t = Table(title=f"history over {nruns} run{'s' if nruns != 1 else ''} ("
                  + (f"the {args.stat} of each point; " if args.stat else "") + "threshold "
                  f"{100 * args.threshold:g}%; 'latest vs before': against the median of earlier runs)",
                  title_justify="left")
        for col in ("metric", "unit", "runs", "first", "latest", "best ever", "spread (CV)",
                    "latest vs before", "changes"):
            t.add_column(col, justify="right" if col in ("runs", "first", "latest", "best ever") else "left")
        for x in series:
            pts = x.points
            best = (min if x.better == "lower" else max)(p["best"] for p in pts)
            lv = x.latest
            verdict = "-" if lv is None else lv["verdict"] + (
                f" ({100 * lv['worse_by']:+.1f}% worse)" if lv["verdict"] in ("regression", "improvement")
                else f" ({lv['why']})" if lv.get("why") else "")
            changes = "; ".join(f"{c.kind} {c.verdict} at run {pts[c.index]['run']} "
                                f"({100 * c.relative:+.0f}%, p={c.p_value:.2g})" for c in x.changes) or "none"
            t.add_row(escape(x.key), escape(x.unit), str(len(pts)), fmt_value(pts[0]["value"]),
                      fmt_value(pts[-1]["value"]), fmt_value(best), f"{100 * pts[-1]['cv']:.1f}%",
                      escape(verdict), escape(changes))
        con.print(t)
    if args.figures:
        from hpceval.report import save_history_figures   # matplotlib only when asked
        with output_errors("--figures"):
            written = save_history_figures(series, Path(args.figures), pdf=args.pdf)
        print(f"wrote {len(written)} figure files to {args.figures}")
    if args.junit:
        with output_errors("--junit"):
            write_text_whole(args.junit, junit_xml(series, args.threshold), "xml", "--junit")
    if args.check:
        bad = regressions(series)
        if bad:
            raise Regressed("latest run regressed beyond {:g}%: ".format(100 * args.threshold) + "; ".join(
                f"{x.key} {pct(x.latest['worse_by'])} vs median of earlier runs" for x in bad))
    return 0
