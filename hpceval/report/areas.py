"""Every area's report figures and tables, registered: each area draws its figures in
figures_<area>.py (register_figure) and its stand-alone tables in tables_<area>.py
(register_table); a benchmark's catalog module may return its own from its hook `figures()`
(hpceval/areas.py). Importing this module registers them all, with no per-area edit here."""
from __future__ import annotations

from pathlib import Path

from hpceval.areas import hook_items, import_prefixed

from .figures import FIGURES, register_figure
from .tables import TABLES, TableSpec, register_table

import_prefixed(__package__, [str(Path(__file__).parent)], ("figures_", "tables_"))
for _item in hook_items("figures"):
    (register_table if isinstance(_item, TableSpec) else register_figure)(_item)

__all__ = ["FIGURES", "TABLES"]
