"""sweep's figures: weak-scaling efficiency vs ranks and grind time vs the pipeline's blocking
(figures_apps.efficiency_and_choices); the overhead breakdown."""
from __future__ import annotations

from .figures_apps import efficiency_and_choices
from .figures_proxies import overhead_specs
from .registry import FigureSpec, register

SECTION, ORDER = "Application proxies", 43

for _spec in [FigureSpec(SECTION, "Wavefront transport (Sweep3D-like): weak-scaling efficiency "
                         "vs ranks, grind time vs the pipeline's blocking (mk, mmi)",
                         efficiency_and_choices, "sweep", order=ORDER)
              ] + overhead_specs("sweep", "Wavefront transport (Sweep3D-like)", ORDER):
    register(_spec)
