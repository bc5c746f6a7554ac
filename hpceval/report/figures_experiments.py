"""The experiments' figure and table (hpceval experiment; drawn in hpceval/experiment/figures.py)."""
from __future__ import annotations

from hpceval.experiment.figures import specs
from hpceval.views.registry import register

for _spec in specs():
    register(_spec)
