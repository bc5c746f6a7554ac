"""Read runs in the export format (docs/export.md) into plain rows of text for the template.

Everything here is tolerant of missing keys: a failed or interrupted run may have no
fingerprint, no records or launches without meta, and newer exports may add keys.
"""
from __future__ import annotations

import json
import math
from typing import Any

from markupsafe import Markup, escape

from hpceval.analysis import headlines, select, value
from hpceval.analysis.headlines import size_label
from hpceval.analysis import decide as dec
from hpceval.analysis import significance as sig
from hpceval.analysis.nodes import node_lines
from hpceval.analysis.outliers import outlier_lines
from hpceval.analysis.summary import machine_line, summary_rows
from hpceval.analysis.warnings import warnings
from hpceval.quality import at_floor, verdict
from hpceval.simulate import mark

MISSING = "—"


# ---------------------------------------------------------------- small formatters

def human_bytes(n: Any, approx: bool = False) -> str:
    """Sizes as size_label writes them (exact unless `approx`); text passed through."""
    if not isinstance(n, (int, float)) or isinstance(n, bool):
        return MISSING if n is None else str(n)
    return size_label(n, approx)


def fmt_num(v: Any) -> str:
    """Four significant digits, thousands separated above 10^4; ints as ints."""
    if v is None:
        return MISSING
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10_000 else str(v)
    if not math.isfinite(v):
        return str(v)
    return f"{v:,.0f}" if abs(v) >= 10_000 else f"{v:.4g}"


def fmt_param(key: str, v: Any) -> str:
    # Sizes are far easier to read in KiB/MiB; the exact byte count stays in the export.
    return human_bytes(v) if key == "bytes" or key.endswith("_bytes") else str(v)


def fmt_params(params: dict | None) -> str:
    return ", ".join(f"{k}={fmt_param(k, v)}" for k, v in (params or {}).items()) or MISSING


def fmt_ci(stats: dict) -> str:
    lo, hi = stats.get("ci_low"), stats.get("ci_high")
    # A dash, not a comma: the numbers themselves may contain thousands separators.
    return MISSING if lo is None or hi is None else f"{fmt_num(lo)} – {fmt_num(hi)}"


# ---------------------------------------------------------------- record access

def records(run: dict, benchmark: str, metric: str | None = None) -> list[dict]:
    return select(run.get("records") or [], benchmark, metric)


def converged(rec: dict) -> bool:
    return rec.get("converged") is not False  # absent means the benchmark did not say


def run_label(run: dict) -> str:
    host = (run.get("fingerprint") or {}).get("hostname")
    return f"#{run.get('id', '?')}" + (f" {host}" if host else "") + mark.run_tag(run)


FIG_LABEL_WIDTH = 28


def fig_label(run: dict, width: int = FIG_LABEL_WIDTH) -> str:
    """run_label cut to `width` characters (with an ellipsis) for legends and panel titles: a
    90-character hostname must not push a figure's text off its canvas."""
    label = run_label(run)
    return label if len(label) <= width else label[:width - 1].rstrip() + "…"


def cache_marks(fp: dict | None) -> list[tuple[str, int]]:
    """[('L1d', 32768), ('L2', ...), ...]: data and unified caches, instruction caches left out."""
    marks = []
    for c in (fp or {}).get("caches") or []:
        kind, size = str(c.get("type") or ""), c.get("size_bytes")
        if not size or kind.lower().startswith("instr"):
            continue
        name = f"L{c.get('level', '?')}" + ("d" if kind.lower() == "data" else "")
        if (name, size) not in marks:
            marks.append((name, size))
    return sorted(marks, key=lambda m: m[1])


# ---------------------------------------------------------------- headline figures

def _headline_row(quantity: str, rec: dict) -> dict:
    stats = rec["stats"]
    return {"quantity": quantity, "point": fmt_params(rec.get("params")),
            "value": fmt_num(value(rec)) + mark.tag(rec), "unit": rec.get("unit") or "",
            "statistic": rec.get("statistic") or "median", "n": fmt_num(stats.get("n")),
            "ci": fmt_ci(stats), "converged": converged(rec), "quality": verdict(rec)}


def headline_rows(run: dict) -> list[dict]:
    return [_headline_row(h["label"], h["record"]) for h in headlines(run.get("records") or [])]


# ---------------------------------------------------------------- machine, results, launches

def fingerprint_rows(run: dict) -> list[tuple[str, list[str]]]:
    """(label, lines) for the compact machine table; keys nobody planned for are shown at the end."""
    fp = run.get("fingerprint") or {}
    mpi, cc = fp.get("mpi") or {}, fp.get("compiler") or {}
    caches = []
    for c in fp.get("caches") or []:
        kind = str(c.get("type") or "").lower()
        name = f"L{c.get('level', '?')}" + {"data": "d", "instruction": "i"}.get(kind, "")
        extras = [f"line {c['line_bytes']} B"] if c.get("line_bytes") else []
        if (c.get("shared_by_cpus") or 0) > 1:
            extras.append(f"shared by {c['shared_by_cpus']} CPUs")
        caches.append(f"{name} {human_bytes(c.get('size_bytes'))}"
                      + (f" ({', '.join(extras)})" if extras else ""))
    hosts = [fp["hostname"]] if fp.get("hostname") else []
    for launch in run.get("launches") or []:
        for h in map(str, (launch.get("meta") or {}).get("hosts") or []):
            if h not in hosts:
                hosts.append(h)
    topo = " / ".join(fmt_num(fp.get(k)) for k in ("sockets", "cores", "threads"))
    rows = [
        ("CPU", [f"{fp.get('cpu_model') or MISSING}" + (f" ({fp['arch']})" if fp.get("arch") else "")]),
        ("Sockets / cores / threads", [topo]),
        ("NUMA nodes", [fmt_num(fp.get("numa_nodes"))]),
        ("Caches", caches or [MISSING]),
        ("Memory", [human_bytes(fp.get("memory_bytes"), approx=True)]),
        ("OS / kernel", [f"{fp.get('os') or MISSING} / {fp.get('kernel') or MISSING}"]),
        ("THP / governor", [f"{fp.get('thp') or MISSING} / {fp.get('cpu_governor') or MISSING}"]),
        ("MPI", [" ".join(str(mpi[k]) for k in ("flavour", "version") if mpi.get(k)) or MISSING]
                + ([f"launcher: {mpi['launcher']}"] if mpi.get("launcher") else [])),
        ("Compiler", [" ".join(str(cc[k]) for k in ("cc", "version") if cc.get(k)) or MISSING]
                     + ([f"flags: {cc['cflags']}"] if cc.get("cflags") else [])),
        ("Hostnames", hosts or [MISSING]),
        *([("Nodes", node_lines(run))] if node_lines(run) else []),
        ("Environment", [f"{k}={v}" for k, v in (fp.get("environment") or {}).items()] or [MISSING]),
    ]
    known = {"hash", "hostname", "arch", "cpu_model", "sockets", "cores", "threads", "numa_nodes",
             "caches", "memory_bytes", "os", "kernel", "thp", "cpu_governor", "mpi", "compiler",
             "environment"}
    rows += [(k, [v if isinstance(v, str) else json.dumps(v, sort_keys=True)])
             for k, v in fp.items() if k not in known]
    if fp.get("hash"):
        rows.append(("Fingerprint", [str(fp["hash"])[:16]]))
    return rows


RESULT_STATS = ("n", "min", "median", "mean", "max", "stddev")


def raw_beside(run: dict, rec: dict) -> str:
    """For a point at the subtraction floor: its time with the barrier included, as text."""
    for r in run.get("records") or []:
        if (r.get("benchmark"), r.get("metric"), r.get("params")) == (
                rec.get("benchmark"), "latency_raw", rec.get("params")):
            return f"at the floor; raw {fmt_num(value(r))} {r.get('unit') or ''}".rstrip()
    return "at the floor"


def result_tables(run: dict) -> list[dict]:
    """One table per benchmark, rows in the benchmark's own order, grouped by metric."""
    tables: dict[str, list[dict]] = {}
    for rec in run.get("records") or []:
        stats = rec.get("stats") or {}
        floor = at_floor(rec)
        tables.setdefault(str(rec.get("benchmark")), []).append({
            "quality": raw_beside(run, rec) if floor else verdict(rec), "floor": floor,
            "metric": rec.get("metric"),
            "params": fmt_params(rec.get("params")), "unit": (rec.get("unit") or "") + mark.tag(rec),
            "statistic": rec.get("statistic") or "", "converged": converged(rec),
            "stats": [fmt_num(stats.get(k)) for k in RESULT_STATS], "ci": fmt_ci(stats),
        })
    out = []
    for bench, rows in tables.items():
        metrics = {m: i for i, m in enumerate(dict.fromkeys(r["metric"] for r in rows))}
        rows.sort(key=lambda r: metrics[r["metric"]])  # stable: keeps sweep order
        out.append({"benchmark": bench, "rows": rows, "html": result_rows_html(rows),
                    "unconverged": sum(not r["converged"] for r in rows),
                    "flagged": sum(r["quality"] != "ok" for r in rows)})
    return out




def result_rows_html(rows: list[dict]) -> Markup:
    """The <tr> elements of a results table, every value escaped. Made here rather than in the
    template: a run may have 10^5 records, and the template engine spends ~100 us a row. A
    value at the barrier-subtraction floor is struck through (not a measurement)."""
    out = []
    for r in rows:
        cells = [escape(str(r[k])) for k in ("params", "metric", "unit", "statistic")]
        strike = (lambda v: f"<s>{v}</s>") if r.get("floor") else (lambda v: v)
        nums = "".join(f'<td class="num">{strike(escape(str(v)))}</td>' for v in r["stats"])
        flag = "" if r["quality"] == "ok" else ' class="flag"'
        out.append(f"<tr{flag}><td>" + "</td><td>".join(cells) + f"</td>{nums}"
                   f'<td class="num">{escape(str(r["ci"]))}</td>'
                   f'<td>{escape(str(r["quality"]))}</td></tr>')
    return Markup("\n".join(out))


def launch_rows(run: dict) -> list[dict]:
    rows = []
    for launch in run.get("launches") or []:
        elapsed = launch.get("elapsed_s")
        rows.append({
            "benchmark": launch.get("benchmark") or MISSING,
            "command": launch.get("command") or MISSING,
            "status": str(launch.get("status") or MISSING),
            "ok": launch.get("status") == "ok",
            "exit_code": MISSING if launch.get("exit_code") is None else str(launch["exit_code"]),
            "elapsed": MISSING if elapsed is None else f"{fmt_num(elapsed)} s",
            "message": launch.get("message") or "",
        })
    return rows


# ---------------------------------------------------------------- card, comparison, history

def _pct(d: Any) -> str:
    return MISSING if d is None else ("best" if d == 0 else f"+{100 * d:.1f}%")


def card_rows(card: list[dict]) -> list[dict]:
    """The machine card (hpceval.analysis.card) as text; a new section starts a group."""
    rows, last = [], None
    for r in card:
        rec = r["record"]
        rows.append({
            "section": r["section"] if r["section"] != last else "", "quantity": r["quantity"],
            "measured": r["measured"],
            "value": (fmt_num(r["value"]) + mark.tag(rec) if r["measured"] else r["missing"]),
            "unit": r["unit"] if r["measured"] else "", "point": r["point"],
            "statistic": f"{rec.get('statistic') or 'median'}, n={fmt_num((rec.get('stats') or {}).get('n'))}"
                         if rec else "",
            "ci": fmt_ci(rec.get("stats") or {}) if rec else "",
        })
        last = r["section"]
    return rows


VERDICT_CLASS = {sig.BETTER: "better", sig.WORSE: "worse", sig.SAME: "same",
                 sig.NOT_COMPARABLE: "nc", "baseline": "base",
                 dec.FASTER: "better", dec.SLOWER: "worse", dec.UNDECIDED: "nc"}


def _change(row: dict, i: int) -> str:
    """'slower x1.210 (1.190-1.230)', 'undecided x1.020 (0.910-1.160): why'; '' for the
    reference."""
    verdict = row["verdicts"][i]
    if verdict == "baseline":
        return ""
    text = f"{verdict} {dec.ratio_text(row['ratios'][i], row['intervals'][i])}".rstrip()
    why = row["why"][i]
    return text + (f": {why}" if why else "")


def compare_rows(rows: list[dict]) -> list[dict]:
    out = []
    for r in rows:
        sims = r.get("simulated") or [False] * len(r["values"])
        out.append({"label": r["label"], "point": fmt_params(r["params"]), "unit": r["unit"],
                    "better": r["better"],
                    "cells": [{"value": fmt_num(v) + (mark.SUFFIX if sims[i] else ""),
                               "change": _change(r, i), "cls": VERDICT_CLASS.get(verdict, "")}
                              for i, (v, verdict) in enumerate(zip(r["values"], r["verdicts"]))]})
    return out


def compare_summary(summary: list[dict]) -> list[dict]:
    return [{"shared": s["shared"], "best_in": s["best_in"], "median": _pct(s["median_deficit"]),
             "geomean": MISSING if s["geomean_ratio"] is None else f"{s['geomean_ratio']:.3f}"}
            for s in summary]


def history_rows(series: list) -> list[dict]:
    out = []
    for x in series:
        pts = x.points
        lv = x.latest
        out.append({
            "metric": x.key, "unit": x.unit, "runs": len(pts),
            "first": fmt_num(pts[0]["value"]), "latest": fmt_num(pts[-1]["value"]),
            "best": fmt_num((min if x.better == "lower" else max)(
                p["best"] for p in pts if p["best"] is not None) if any(p["best"] is not None for p in pts) else None),
            "cv": f"{100 * pts[-1]['cv']:.1f}%",
            "verdict": MISSING if lv is None else lv["verdict"] + (
                f" ({lv['why']})" if lv.get("why") else ""),
            # a relative change only where it is a change: noise has no direction
            "worse_by": f"{100 * lv['worse_by']:+.1f}%" if lv and lv["verdict"] in (
                "regression", "improvement") else "",
            "cls": VERDICT_CLASS.get({"regression": sig.WORSE, "improvement": sig.BETTER,
                                      "unchanged": sig.SAME}.get(lv["verdict"] if lv else "",
                                                                 lv["verdict"] if lv else ""), ""),
            "flag": bool(lv and lv["verdict"] == "regression") or any(
                c.verdict in ("regression", "noisier") for c in x.changes),
            "changes": [f"{c.kind}: {c.verdict} from run #{pts[c.index]['run']} "
                        f"({100 * c.relative:+.0f}%, p = {c.p_value:.2g})" for c in x.changes],
        })
    return out


# ---------------------------------------------------------------- summaries and warnings

def summary_view(run: dict) -> dict:
    """The run's one-screen summary as text: machine line, measured card rows, warnings."""
    rows = []
    for r in summary_rows(run):
        ci = MISSING if r["ci_low"] is None else f"{fmt_num(r['ci_low'])} – {fmt_num(r['ci_high'])}"
        if ci != MISSING and r.get("statistic") not in (None, "median"):
            ci = f"median's: {ci}"      # STREAM's best rate: the interval is still the median's
        rows.append({**r, "value": fmt_num(r["value"]) + (mark.SUFFIX if r.get("simulated") else ""),
                     "ci": ci, "ok": r["quality"] == "ok"})
    return {"machine": machine_line(run), "rows": rows,
            "warnings": [w._asdict() for w in warnings(run)], "outliers": outlier_lines(run)}
