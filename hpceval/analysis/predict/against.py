"""Every model against one run (`hpceval predict --run RUN`, issue #45): for each proxy with a
model, each configuration the run measured on more than one rank, predicted from the machine's
parameters (the run's own communication records first, then its machine's other runs) at every
rung the run measured, beside what it measured there."""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import List, Optional

from hpceval.analysis.predict.machine import machine_params
from hpceval.analysis.predict.model import (MODELS, Row, measured_configs, measured_times,
                                            predict, read_options)
from hpceval.errors import UsageError


@dataclass
class Checked:
    proxy: str
    config: dict
    unit: str
    rows: List[Row] = field(default_factory=list)   # only the rungs the run measured
    skipped: Optional[str] = None                   # why this configuration has no prediction
    layouts: dict = field(default_factory=dict)     # ranks -> process grid the model chose


def against_run(run: dict, runs: List[dict], proxies: Optional[List[str]] = None) -> List[Checked]:
    """One entry per (proxy, configuration) the run measured on more than one rank."""
    out: List[Checked] = []
    for name in proxies or sorted(MODELS):
        am = MODELS[name]
        for options in measured_configs(am, [run]):
            cfg = read_options(am, options)
            rungs = sorted(measured_times(am, [run], cfg))
            entry = Checked(name, cfg, am.unit)
            try:
                m = machine_params([run] + [r for r in runs if r.get("id") != run.get("id")],
                                   run)
                # measured in the run itself: the best of every run (another study's, or the
                # same rung measured faster the day before) made 33.8 us at 16 ranks stand for
                # the run's own 45.0 (predict --run 5 of the 256-rank study)
                entry.rows = [r for r in predict(am, cfg, rungs, m, [run]) if r.measured]
                entry.layouts = {p: g for (n, p), g in m.layouts.items() if n == name}
            except UsageError as exc:
                entry.skipped = str(exc)
            out.append(entry)
    return out


def median_abs_error(checked: List[Checked]) -> Optional[float]:
    errors = [abs(r.error) for c in checked for r in c.rows if r.error is not None]
    return statistics.median(errors) if errors else None
