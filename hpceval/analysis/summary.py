"""A run on one screen: the machine in one line, then the measured figures of the machine card
(memory per level, MPI, barrier, STREAM, kernels, application rates) each with its CI and
quality, and the comparison of runs as a few sentences. Shared by `show`, `compare` and the
report, so they say the same."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.analysis import significance as sig
from hpceval.analysis.card import data_caches, machine_card
from hpceval.analysis.headlines import size_label
from hpceval.simulate import mark

Run = Dict[str, Any]

# The card's sections that hold measurements (System is the machine line).
SKIP_SECTIONS = ("System",)


def machine_line(run: Run) -> str:
    """'Intel Xeon ..., 2 cores, L1d 48 KiB / L2 1.25 MiB / L3 ..., Open MPI 4.1.4'"""
    fp = run.get("fingerprint") or {}
    if mark.platform(run):
        return f"{mark.platform_line(run)} (on {fp.get('hostname')})"
    caches = " / ".join(f"L{c.get('level')} {size_label(c['size_bytes'], approx=True)}"
                        for c in data_caches(fp))
    mpi = " ".join(str(v) for v in ((fp.get("mpi") or {}).get("version"),) if v)
    parts = [fp.get("cpu_model"), f"{fp['cores']} cores" if fp.get("cores") else None,
             caches or None, mpi or None, fp.get("hostname")]
    return ", ".join(str(p) for p in parts if p) or "machine not recorded"


def summary_rows(run: Run) -> List[Dict[str, Any]]:
    """[{section, quantity, value, unit, ci_low, ci_high, point, quality}] of the measured card
    rows; quality is 'ok', the record's verdict, or the card's own warning (oversubscribed)."""
    out = []
    for r in machine_card(run):
        if not r["measured"] or r["section"] in SKIP_SECTIONS or r["record"] is None:
            continue
        s = r["record"].get("stats") or {}
        q = sig.short_verdict(r["record"])
        if r.get("warning"):
            q = r["warning"] if q == "ok" else f"{r['warning']}; {q}"
        out.append({"section": r["section"], "quantity": r["quantity"], "value": r["value"],
                    "unit": r["unit"], "ci_low": s.get("ci_low"), "ci_high": s.get("ci_high"),
                    "point": r["point"], "quality": q, "statistic": r["record"].get("statistic"),
                    "simulated": mark.record_simulated(r["record"])})
    return out


def _names(runs: List[Run]) -> List[str]:
    return [f"#{r.get('id', '?')}" for r in runs]


def _model_error_line(names: List[str], i: int, e: Dict[str, Any]) -> str:
    """'Simulated against real (#2 against #1), 73 points: median |error| 0.4%, 61 within 10%,
    70 within 20%; worst: pingpong latency bytes=7 +41%, ...'"""
    worst = ", ".join(f"{w['label']} " + " ".join(f"{k}={v}" for k, v in w["params"].items())
                      + f" {100 * w['error']:+.0f}%" for w in e["worst"])
    return (f"Simulated against real ({names[i]} against {names[0]}), {e['points']} points: "
            f"median |error| {100 * e['median_abs']:.1f}%, {e['within_10']} within 10%, "
            f"{e['within_20']} within 20%; worst: {worst}.")


def comparison_lines(result: Dict[str, Any], runs: List[Run]) -> List[Dict[str, str]]:
    """[{text, kind}] saying, per run after the first, how many shared points are faster, slower,
    the same within the tolerance or undecided, which runs were disturbed, and when every
    decided difference goes one way on one machine (the slower run was disturbed)."""
    names = _names(runs)
    lines = []
    for name, s in zip(names, result["summary"]):
        q = s["quality"]
        if q["disturbed"]:
            lines.append({"kind": "bad", "text": f"Run {name} was disturbed: {q['disturbed']} of "
                          f"{q['points']} points ({', '.join(q['reasons'])}); they are compared "
                          "by their samples, which show what the disturbance did."})
    real = [n for n, r in zip(names, runs) if not mark.platform(r)]
    for name, run in zip(names, runs):
        if mark.platform(run) and real:
            lines.append({"kind": "info", "text": (
                f"Run {name} is simulated (platform {mark.platform(run)['name']}"
                f"{mark.twin_source(run)}): its figures stand beside run(s) {', '.join(real)} as "
                "a model's, their ratios its error, never a verdict (not comparable).")})
    for i, s in enumerate(result["summary"]):
        if s.get("model_error"):
            lines.append({"kind": "info", "text": _model_error_line(names, i, s["model_error"])})
    for i, (name, s) in enumerate(zip(names, result["summary"])):
        if i == 0:
            continue
        v = s["verdicts"]
        tol = f"±{100 * result.get('tolerance', 0.05):g}%"
        lines.append({"kind": "info", "text": (
            f"Run {name} against {names[0]}, {s['shared']} shared points: {v['faster']} faster, "
            f"{v['slower']} slower, {v['same']} the same (the ratio's 95% interval inside "
            f"{tol}), {v['undecided']} undecided"
            + (f", {v['not comparable']} not comparable (simulated against real)"
               if v.get("not comparable") else "") + ".")})
        if s["uniform"]:
            slow = names[0] if s["uniform"] == "faster" else name
            lines.append({"kind": "bad", "text": (
                f"On the same machine every decided difference goes against run {slow}, "
                "across benchmarks: most likely that run was slowed by other load (a disturbed "
                "run), not a regression.")})
    return lines
