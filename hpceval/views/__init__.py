"""What the runs show, per benchmark or area, apart from how they are planned (the catalog) and
computed (the analysis): machine-card rows, headline rows, report figures and tables. A layer
above the analysis; the CLI and the report load it (docs/architecture.md).

Modules are found by name, so a new benchmark edits no list here:

    rows_<name>.py      card rows (hpceval.analysis.card.register_card_row) and headline rows
                        (hpceval.analysis.headlines.register_headline); no matplotlib, so that
                        `hpceval run` and `show` load them cheaply
    figures_<name>.py   report figures (registry.register_figure, drawn with plot.py)
    tables_<name>.py    report tables (registry.register_table)

and, from a directory in HPCEVAL_CATALOG_PATH, every `views_*.py` (with its rows and figures).
Shared by the views: plot.py (plotting helpers), data.py (selecting and formatting records),
registry.py (FIGURES, TABLES), best.py (a proxy's best point as a card and headline row)."""
from __future__ import annotations

from typing import Any, List

from hpceval.discover import import_prefixed, outside_modules


def load_rows() -> List[Any]:
    """Register every benchmark's card and headline rows (and the figures of views from
    outside the package); idempotent."""
    return (import_prefixed(__name__, __path__, ("rows_",))
            + outside_modules(lambda name: name.startswith("views_")))


def load() -> List[Any]:
    """Register every view: the figures and tables (matplotlib), then the rows; idempotent."""
    return import_prefixed(__name__, __path__, ("figures_", "tables_")) + load_rows()
