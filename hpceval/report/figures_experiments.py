"""The experiments' figure and table (hpceval experiment; drawn in hpceval/experiment/figures.py)."""
from __future__ import annotations

from hpceval.experiment.figures import specs

from .figures import register_figure
from .tables import TableSpec, register_table

for _spec in specs():
    (register_table if isinstance(_spec, TableSpec) else register_figure)(_spec)
