"""The "Models" section: each application model (hpceval/analysis/predict) predicted from the
report's runs of one machine, against what those runs measured, and extrapolated to 10^5 ranks
to show where communication overtakes computation (`hpceval predict` draws the same figure)."""
from __future__ import annotations

from typing import List, Optional, Tuple

from matplotlib.figure import Figure

from hpceval.analysis.predict import MODELS, machine_params, model, predict
from hpceval.analysis.predict.machine import grouped_sources
from hpceval.analysis.predict.model import measured_configs, read_options
from hpceval.errors import UsageError

from .data import fmt_num
from .plot import new_figure, safe_text
from .registry import FigureSpec, register_figure, register_table, Table, TableSpec

SECTION = "Models"
ORDER = 60
MEASURED_RANKS = (1, 2, 4, 8)
FAR = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
       100000]


def prediction(runs: List[dict], name: str, ranks: List[int], options: Optional[dict] = None):
    """(model, config, rows, machine) or None when the runs lack what the model needs."""
    am = model(name)
    try:
        m = machine_params(runs)
        cfg = read_options(am, options or {})
        return am, cfg, predict(am, cfg, ranks, m), m
    except UsageError:
        return None


def crossover(am, rows) -> Optional[int]:
    """The first rank count whose communication parts exceed its compute parts."""
    for r in rows:
        comp = sum(v for k, v in r.parts.items() if k in am.compute_parts)
        if r.total - comp > comp:
            return r.nranks
    return None


def draw(am, near, far, title: str) -> Figure:
    """Left: predicted (stacked parts) and measured per rank count; right: the parts to 10^5."""
    fig = new_figure((11.0, 4.2))
    left, right = fig.subplots(1, 2)
    names = list(near[0].parts)
    xs = list(range(len(near)))
    bottom = [0.0] * len(near)
    for k in names:
        vals = [r.parts[k] for r in near]
        left.bar(xs, vals, bottom=bottom, label=safe_text(k), width=0.6)
        bottom = [b + v for b, v in zip(bottom, vals)]
    meas = [(x, r.measured) for x, r in zip(xs, near) if r.measured]
    if meas:
        left.plot([x for x, _ in meas], [v for _, v in meas], "kD", ms=7, label="measured")
    left.set_xticks(xs, [str(r.nranks) for r in near])
    left.set_xlabel("ranks")
    left.set_ylabel(am.unit)
    left.legend(fontsize=7)
    for k in names:
        right.plot([r.nranks for r in far],              # a part that is 0 is not drawn
                   [r.parts[k] if r.parts[k] > 0 else float("nan") for r in far], marker=".",
                   label=safe_text(k))
    right.plot([r.nranks for r in far], [r.total for r in far], "k-", lw=1.6, label="total")
    cross = crossover(am, far)
    if cross:
        right.axvline(cross, color="#d62728", ls=":", lw=1)
        right.text(cross, 1.0, f" comm > compute\n from {cross} ranks", va="top", fontsize=7,
                   transform=right.get_xaxis_transform(), color="#d62728")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("ranks (extrapolated)")
    right.set_ylabel(am.unit)
    right.legend(fontsize=7)
    fig.suptitle(safe_text(title), x=0.01, ha="left", fontsize=10)
    return fig


def _near_far(runs: List[dict], name: str) -> Optional[Tuple]:
    """The first configuration the runs measured on more than one rank that the model can
    predict from them (a model is shown against a measurement)."""
    for options in measured_configs(model(name), runs):
        near = prediction(runs, name, list(MEASURED_RANKS), options)
        if near is not None and any(r.measured for r in near[2][1:]):
            am, cfg, rows, m = near
            return am, cfg, rows, prediction(runs, name, FAR, options)[2], m
    return None


def _figure_of(name: str):
    def make(runs: List[dict]) -> Optional[Figure]:
        got = _near_far(runs, name)
        if got is None:
            return None
        am, cfg, near, far, m = got
        return draw(am, near, far, f"{name} ({_cfg(cfg)}) on {m.fingerprint}")
    return make


def _cfg(cfg: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in cfg.items())


def table(am, rows, m) -> Table:
    out = [[str(r.nranks), m.layouts.get((am.name, r.nranks), ""),
            *(fmt_num(v) for v in r.parts.values()), fmt_num(r.total),
            fmt_num(r.measured) if r.measured else "-",
            f"{100 * r.error:+.1f}%" if r.error is not None else "-"] for r in rows]
    cols = ["ranks", "grid", *rows[0].parts, f"predicted [{am.unit}]", "measured", "error"]
    note = "; ".join(f"{k}: {v}" for k, v in grouped_sources(m.sources).items())
    return Table(cols, out, f"Parameters: {note}. Measured: the best of the runs' records of this "
                 "configuration at that rank count (best process grid).")


def _table_of(name: str):
    def make(run: dict) -> Optional[Table]:
        got = _near_far([run], name)
        if got is None:
            return None
        am, _, near, _, m = got
        return table(am, [r for r in near if r.measured], m)
    return make


# Every model (every benchmark that declares one, hpceval/analysis/predict), by name.
for _name in sorted(MODELS):
    register_figure(FigureSpec(SECTION, f"{_name}: predicted time per unit and its parts vs "
                               "measured, and extrapolated to 10^5 ranks", _figure_of(_name),
                               _name, ORDER))
    register_table(TableSpec(SECTION, f"{_name}: predicted vs measured", _table_of(_name),
                             order=ORDER))
