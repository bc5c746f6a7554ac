"""What every application model shares: the registry, the prediction of one configuration on a
list of rank counts, the measured times to hold it against, and the compute rate taken from a
proxy's one-rank runs (docs/models.md)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from hpceval.analysis.headlines import select, value
from hpceval.analysis.scaling import extra, nranks
from hpceval.catalog.params import Param
from hpceval.errors import UsageError


@dataclass
class AppModel:
    """One proxy's model. `parts(cfg, p, machine)` -> {part: us per unit} for p ranks (the
    parts add up to the prediction); `config(options)` -> the configuration, defaults filled
    in; `matches(params, cfg)` -> a record of that configuration (any rank count);
    `measured(rec)` -> the record's us per unit."""
    name: str
    unit: str                                     # "us/iteration", ...
    metric: str                                   # the time metric its records carry
    options: Tuple[Param, ...]                    # validated, defaults filled in: read_options
    config: Callable[[Dict[str, Any]], Dict[str, Any]]
    parts: Callable[[Dict[str, Any], int, Any], Dict[str, float]]
    matches: Callable[[dict, Dict[str, Any]], bool]
    measured: Callable[[dict], float] = value
    compute_parts: Tuple[str, ...] = ("compute",)  # the rest is communication
    # a measured record's params -> the options that describe its configuration
    options_of: Callable[[dict], Dict[str, Any]] = lambda params: {}


MODELS: Dict[str, AppModel] = {}


def register_model(m: AppModel) -> AppModel:
    MODELS[m.name] = m
    return m


def read_options(m: AppModel, raw: Dict[str, Any]) -> Dict[str, Any]:
    """Every option of the model, parsed and range-checked (one-line errors), defaults for the
    ones not given; then the model's own config() checks what spans options."""
    known = {p.name: p for p in m.options}
    for k in raw:
        if k not in known:
            raise UsageError(f"--set {k}: {m.name}'s options are "
                             f"{', '.join(f'{n}=...' for n in known)}")
    return m.config({n: p.parse(str(raw[n])) if raw.get(n) not in (None, "") else p.default
                     for n, p in known.items()})


def model(name: str) -> AppModel:
    if name not in MODELS:
        raise UsageError(f"no model of '{name}': one of {', '.join(sorted(MODELS))}")
    return MODELS[name]


def one_rank_rate(runs: List[dict], bench: str, metric: str, work: Callable[[dict], float],
                  time: Callable[[dict], Optional[float]], size: float,
                  keep: Callable[[dict], bool] = lambda p: True,
                  hint: str = "") -> Tuple[float, str]:
    """us per unit of work from the one-rank record whose work is nearest `size` (in log: the
    rate at the cache level the ranks will work in), newest run first; and its source. `hint`:
    the --set words that make such a record (what `keep` asks of it), for the error."""
    best = None
    for run in runs:
        for r in select(run.get("records") or [], bench, metric):
            p = r["params"]
            t, w = time(r), work(r)
            # t == 0: a simulated run that charges no computation (compute=none)
            if nranks(p) != 1 or not keep(p) or t is None or not w or t < 0:
                continue
            d = abs(math.log(w / size))
            if best is None or d < best[0] - 1e-9:
                best = (d, t / w, f"{bench} one-rank run ({_shape(p)}) of run {run.get('id')}")
    if best is None:
        raise UsageError(f"no one-rank {bench} record in this machine's runs: run "
                         f"'hpceval run {bench} --set {bench}.ranks=1{hint}' first")
    return best[1], best[2]


def _shape(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items() if k in (
        "nx", "ny", "nz", "truncation", "levels", "sn", "cycles", "particles", "geometry"))


def phase_time(rec: dict, *names: str, rank: int = 0) -> Optional[float]:
    """The sum of the named phases' us on one rank of a record (None without phases)."""
    phases = extra(rec, "phases")
    if not isinstance(phases, dict):
        return None
    return sum(float(phases[n]["per_rank"][rank]) for n in names if n in phases)


@dataclass
class Row:
    nranks: int
    parts: Dict[str, float]
    measured: Optional[float] = None
    measured_in: Optional[int] = None             # run id
    extra: Dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return sum(self.parts.values())

    @property
    def error(self) -> Optional[float]:
        """(predicted - measured) / measured."""
        return None if not self.measured else self.total / self.measured - 1.0


def measured_times(m: AppModel, runs: List[dict], cfg: Dict[str, Any]) -> Dict[int, Tuple[float, int]]:
    """{ranks: (best measured us per unit, run id)} of this configuration in these runs."""
    out: Dict[int, Tuple[float, int]] = {}
    for run in runs:
        for r in select(run.get("records") or [], m.name, m.metric):
            if value(r) and m.matches(r["params"], cfg) and not r["params"].get("traced"):
                n, t = nranks(r["params"]), m.measured(r)
                if n not in out or t < out[n][0]:
                    out[n] = (t, run.get("id"))
    return out


def predict(m: AppModel, cfg: Dict[str, Any], ranks: List[int], machine: Any,
            against: Optional[List[dict]] = None) -> List[Row]:
    """One row per rank count the problem can be split over (larger ones are left out, and
    listed in machine.sources; none at all is an error), beside the best time measured there
    in `against` (the machine's runs when not given)."""
    from hpceval.analysis.predict.grids import TooMany
    measured = measured_times(m, machine.runs if against is None else against, cfg)
    rows, left_out = [], []
    for p in ranks:
        try:
            row = Row(p, m.parts(cfg, p, machine))
        except TooMany:
            left_out.append(p)
            continue
        if p in measured:
            row.measured, row.measured_in = measured[p]
        rows.append(row)
    if left_out:
        machine.sources["left out"] = (f"{', '.join(map(str, left_out))} ranks: more than the "
                                       "problem can be split into")
    if not rows:
        raise UsageError(f"{m.name}: the problem cannot be split over "
                         f"{', '.join(map(str, ranks))} ranks: give a larger grid")
    return rows


def measured_configs(m: AppModel, runs: List[dict]) -> List[Dict[str, Any]]:
    """The options of every configuration measured on more than one rank, newest run first."""
    out: List[Dict[str, Any]] = []
    for run in runs:
        for r in select(run.get("records") or [], m.name, m.metric):
            if nranks(r["params"]) > 1 and not r["params"].get("traced"):
                o = m.options_of(r["params"])
                if o and o not in out:
                    out.append(o)
    return out
