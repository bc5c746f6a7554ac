"""How an area (memory, communication, kernels, ... or one new benchmark) adds to the registries
without a central list: the catalog imports every area's catalog module, and a registry
downstream of it (the machine card, the headlines, the report's figures) asks those modules for
their contributions through a hook, a function of a given name that returns the items to
register (docs/architecture.md):

    def card_rows():        hpceval.analysis.card.CardRow items
    def headline_rows():    hpceval.analysis.headlines.Headline items
    def figures():          hpceval.report.figures.FigureSpec / hpceval.report.tables.TableSpec

A hook imports what it needs when it is called, so the catalog itself stays free of the analysis
and the report (and of matplotlib). Registered items carry an `order`: a registry is kept sorted
by it, registration order among equals, so that areas discovered in any order still show in
the order the machine card (EV7 Table 5.1) and the report lay them out."""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable, Iterable, List, Tuple

DEFAULT_ORDER = 50       # after every built-in area; see docs/architecture.md for the others


def place(registry: List[Any], item: Any) -> Any:
    """Insert `item` after every entry of the same or a lower `order`; returns it."""
    i = len(registry)
    while i and registry[i - 1].order > item.order:
        i -= 1
    registry.insert(i, item)
    return item


def import_prefixed(package: str, path: Iterable[str], prefixes: Tuple[str, ...]) -> List[Any]:
    """Import the modules of `package` whose names start with one of `prefixes`, by name."""
    names = sorted(m.name for m in pkgutil.iter_modules(path) if m.name.startswith(prefixes))
    return [importlib.import_module(f"{package}.{name}") for name in names]


def hook_items(name: str) -> List[Any]:
    """What the hook `name` of every area's catalog module returns, in catalog order."""
    from hpceval.catalog import AREA_MODULES
    items: List[Any] = []
    for module in AREA_MODULES:
        hook = getattr(module, name, None)
        if callable(hook):
            items.extend(hook())
    return items


class Hook:
    """A registry's contributions from the areas, registered once, when first needed (not on
    import: a hook imports the registry's module itself)."""

    def __init__(self, name: str, register: Callable[[Any], Any]):
        self.name, self.register, self.loaded = name, register, False

    def load(self) -> None:
        if not self.loaded:
            self.loaded = True
            for item in hook_items(self.name):
                self.register(item)
