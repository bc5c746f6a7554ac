"""Every view the report shows, registered: the views' figures, tables and rows (hpceval/views,
found by name: no per-area edit here), then the experiments' (figures_experiments.py: the
experiment layer sits above the views)."""
from __future__ import annotations

from hpceval.views import load
from hpceval.views.registry import FIGURES, TABLES

load()
from . import figures_experiments  # noqa: E402,F401  (registers)

__all__ = ["FIGURES", "TABLES"]
