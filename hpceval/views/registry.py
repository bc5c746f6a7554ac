"""The report's figures and tables, registered by the views (hpceval/views/figures_<area>.py,
tables_<area>.py). A FigureSpec's `make` takes a list of runs and returns a matplotlib Figure
or None; a TableSpec's takes one run and returns a Table or None. Nothing here imports
matplotlib: a figure module does, when the report loads it. FigureSpec.order places an area's
figures: interconnect 10, memory 20, compute kernels 30, application proxies 40, scaling 45,
models 60, traces 90, new areas 50 by default."""
from __future__ import annotations

from typing import Any, Callable, List, NamedTuple, Optional

from hpceval.discover import DEFAULT_ORDER, place


class FigureSpec(NamedTuple):
    section: str                                  # heading the figure appears under
    title: str                                    # caption
    make: Callable[[list], Any]                   # runs -> matplotlib Figure or None
    benchmark: str                                # runs without it are left out of comparisons
    order: int = DEFAULT_ORDER                    # where it goes among the areas' (see above)


FIGURES: List[FigureSpec] = []


def register_figure(spec: FigureSpec) -> FigureSpec:
    """Add a figure; kept in `order` (registration order among equals); figures of one section
    are shown together."""
    return place(FIGURES, spec)


class Table(NamedTuple):
    columns: List[str]
    rows: List[List[object]]          # cells are shown as text (escaped)
    note: str = ""                    # a line under the table: method, caveats


class TableSpec(NamedTuple):
    section: str                      # the figure section it joins ("Memory", "Interconnect", ...)
    title: str
    make: Callable[[dict], Optional[Table]]   # one run (export format) -> Table, or None
    order: int = DEFAULT_ORDER        # its section's order (as FigureSpec's)


TABLES: List[TableSpec] = []


def register_table(spec: TableSpec) -> TableSpec:
    """Add a table; kept in `order` (registration order among equals)."""
    return place(TABLES, spec)


def register(item: Any) -> Any:
    """A FigureSpec or a TableSpec, each to its registry."""
    return (register_table if isinstance(item, TableSpec) else register_figure)(item)
