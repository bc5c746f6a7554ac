"""Analysis tables shown beside an area's figures (a detected memory hierarchy, fitted models).
Each area registers its tables from its figures_<area>.py module with register_table."""
from __future__ import annotations

from typing import Callable, List, NamedTuple, Optional


class Table(NamedTuple):
    columns: List[str]
    rows: List[List[object]]          # cells are shown as text (escaped)
    note: str = ""                    # a line under the table: method, caveats


class TableSpec(NamedTuple):
    section: str                      # the figure section it joins ("Memory", "Interconnect", ...)
    title: str
    make: Callable[[dict], Optional[Table]]   # one run (export format) -> Table, or None


TABLES: List[TableSpec] = []


def register_table(spec: TableSpec) -> TableSpec:
    TABLES.append(spec)
    return spec
