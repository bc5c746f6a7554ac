"""Typed benchmark parameters: parsed and range-checked in Python before anything is launched,
then handed to the C binary as `--name value` (which checks them again)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from hpceval.errors import UsageError

LIST_KINDS = ("ints", "grids", "words")
INT_MAX = 2**31 - 1            # a C int: what the binaries' options hold
_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
# re.ASCII: without it \d takes any script's digits and IGNORECASE takes the Kelvin sign for K.
_SIZE_RE = re.compile(r"^\s*(\d+)\s*([KMGT]?)(?:i?B)?\s*$", re.IGNORECASE | re.ASCII)
_INT_RE = re.compile(r"[+-]?[0-9]+")
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                       r"|[+-]?(?:nan|inf|infinity)", re.IGNORECASE | re.ASCII)
YEAR_S = 366 * 86400           # the longest duration an option takes: beyond it, a typo


def ascii_int(text: Any) -> int:
    """int() of a number a user typed, in ASCII digits with an optional sign: int() alone also
    takes other scripts' digits ('\uff18' is 8), underscores ('1_0' is 10) and spaces."""
    if not _INT_RE.fullmatch(str(text)):
        raise ValueError(f"{str(text)[:40]!r} is not an integer in ASCII digits")
    return int(text)


def ascii_float(text: Any) -> float:
    """float() of a number a user typed, restricted as ascii_int; nan and inf are still
    spelt as float() spells them, for the caller to refuse with its own reason."""
    if not _FLOAT_RE.fullmatch(str(text)):
        raise ValueError(f"{str(text)[:40]!r} is not a number in ASCII digits")
    return float(text)


def parse_size(text: str) -> int:
    """'4K' -> 4096, '1M' -> 1048576, '100' -> 100 (binary suffixes, as the C harness)."""
    m = _SIZE_RE.match(str(text))
    if not m:
        raise ValueError(f"'{text}' is not a size (a non-negative integer with optional K, M, G)")
    return int(m.group(1)) * _SUFFIX[m.group(2).upper()]


def item_text(v: Any) -> str:
    """A list item as its option takes it: (30, 30, 15) -> '30x30x15'."""
    return "x".join(map(str, v)) if isinstance(v, tuple) else str(v)


def format_size(n: int) -> str:
    for suffix in ("G", "M", "K"):
        unit = _SUFFIX[suffix]
        if n >= unit and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


@dataclass(frozen=True)
class Param:
    name: str
    # int | float | size | choice | str: one value; floats | sizes: a comma list of numbers
    # or sizes; ints: a comma list of integers in [min, max]; grids: a comma list of
    # AxB(xC...) of `dims` positive integers; words: a comma list of `choices` ('all': every
    # one). A list is parsed once, here, duplicates dropped in order: a planner takes it as
    # a list. An empty list is refused unless the default is empty (then: not given).
    kind: str
    default: Any
    help: str
    min: Optional[float] = None
    max: Optional[float] = None
    choices: Sequence[str] = field(default_factory=tuple)
    option: Optional[str] = None   # the C option, when it differs from --name
    above: bool = False            # min is excluded: a value must be above it (> 0: positive)
    increasing: bool = False       # floats: each item above the one before
    max_items: int = 4096          # floats: at most this many items
    noun: str = ""                 # ints, grids: what an item is, for errors ("S_N order")
    dims: int = 3                  # grids: integers per item
    every: bool = False            # words: 'all' stands for every choice
    binary: str = ""               # the binary whose option it is (options.py); "": the planner's
    at_most: str = ""              # another parameter whose value this one's may not exceed,
                                   # as the binary's table says (min-reps at most max-reps)

    def parse(self, text: str) -> Any:
        """Parse a --set value; raise UsageError with a one-line reason."""
        try:
            value = self._convert(text)
        except ValueError as exc:
            raise UsageError(f"--set {self.name}: {exc}") from None
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, (int, float)) and not self._in_range(v):
                shown = {"floats": f"{v:g}", "ints": str(v)}.get(self.kind, text)
                raise UsageError(f"--set {self.name}: {shown} is out of range "
                                 f"{'(' if self.above else '['}{self._fmt(self.min)}, "
                                 f"{self._fmt(self.max)}]")
        if self.increasing and any(b <= a for a, b in zip(value, value[1:])):
            raise UsageError(f"--set {self.name}: {text} is not increasing")
        return value

    @property
    def initial(self) -> Any:
        """The default as a planner takes it: a list kind's default may be written as its --set
        text ("all", "4,8", "8x8x8,16x16x16"), shown so by `hpceval list`."""
        return self.parse(self.default) if self.kind in LIST_KINDS and isinstance(
            self.default, str) else self.default

    def _in_range(self, v: float) -> bool:
        if self.min is not None and (v <= self.min if self.above else v < self.min):
            return False
        return self.max is None or v <= self.max

    def _convert(self, text: str) -> Any:
        if self.kind == "int":
            try:
                return ascii_int(text)
            except ValueError:
                raise ValueError(f"'{text}' is not an integer") from None
        if self.kind == "float":
            try:
                value = ascii_float(text)
            except ValueError:
                raise ValueError(f"'{text}' is not a number") from None
            if not math.isfinite(value):    # nan passes every range check; inf is no setting
                raise ValueError(f"'{text}' is not a finite number")
            return value
        if self.kind == "floats":
            return self._floats(text)
        if self.kind == "size":
            return parse_size(text)
        if self.kind == "sizes":
            items = [t for t in str(text).split(",") if t.strip()]
            if not items and self.default in ("", [], ()):
                return []           # not given: the planner's own (mem-latency's, dense's n)
            if not items:
                raise ValueError("empty list of sizes")
            return sorted({parse_size(t) for t in items})
        if self.kind in LIST_KINDS:
            return self._list(text)
        if self.kind == "choice":
            if text not in self.choices:
                raise ValueError(f"'{text}' is not one of {', '.join(self.choices)}")
            return text
        return str(text)

    def _list(self, text: str) -> list:
        items = list(dict.fromkeys(t.strip() for t in str(text).split(",") if t.strip()))
        if not items:
            if self.default in ("", [], ()):
                return []
            raise ValueError("empty list")
        if self.kind == "words":
            if self.every and "all" in items:
                return list(self.choices)
            bad = next((w for w in items if w not in self.choices), None)
            if bad is not None:
                raise ValueError(f"'{bad}' is not one of {', '.join(self.choices)}"
                                 + (", all" if self.every else ""))
            return items
        return list(dict.fromkeys(self._int(t) if self.kind == "ints" else self._grid(t)
                                  for t in items))

    def _int(self, t: str) -> int:
        try:
            return ascii_int(t)
        except ValueError:
            raise ValueError(f"'{t}' is not a {self.noun or 'whole number'}") from None

    def _grid(self, t: str) -> tuple:
        """'30x30x15' -> (30, 30, 15): `dims` positive integers."""
        form = self.noun or "x".join("N" * self.dims)
        try:
            dims = [ascii_int(x) for x in t.lower().split("x")]
        except ValueError:
            raise ValueError(f"'{t}' is not {form}") from None
        if len(dims) != self.dims or min(dims) < 1:
            raise ValueError(f"'{t}' is not {form}" + (" with positive numbers"
                                                       if len(dims) == self.dims else ""))
        if max(dims) > INT_MAX:
            raise ValueError(f"'{t}': {max(dims)} is more than {INT_MAX}")
        return tuple(dims)

    def _floats(self, text: str) -> list:
        """'1,0.5' -> [1.0, 0.5]: a comma list of finite numbers, in the order given."""
        items = [t.strip() for t in str(text).split(",")]
        if not any(items):
            raise ValueError("empty list of numbers")
        if len(items) > self.max_items:
            raise ValueError(f"{len(items)} numbers, at most {self.max_items}")
        out = []
        for t in items:
            try:
                v = ascii_float(t)
            except ValueError:
                raise ValueError(f"'{t}' is not a number (in the comma list '{text}')") from None
            if not math.isfinite(v):
                raise ValueError(f"'{t}' is not a finite number")
            out.append(v)
        return out

    def _fmt(self, v: Optional[float]) -> str:
        if v is None:
            return "..."
        if self.kind == "ints":
            return str(int(v))
        return format_size(int(v)) if self.kind in ("size", "sizes") else f"{v:g}"

    def to_arg(self, value: Any) -> list[str]:
        opt = self.option or f"--{self.name}"
        if isinstance(value, list):
            return [opt, ",".join(repr(v) if isinstance(v, float) else item_text(v)
                                  for v in value)]
        return [opt, str(value)]

    def describe(self) -> str:
        d = self.default
        if isinstance(d, list) and self.kind in LIST_KINDS:
            d = ",".join(map(item_text, d))
        elif isinstance(d, list) and self.kind == "floats":
            d = ",".join(f"{x:g}" for x in d)
        elif isinstance(d, list):
            d = f"{format_size(d[0])}..{format_size(d[-1])} ({len(d)} values)" if d else "auto"
        elif d is None:
            d = "auto"
        return f"{self.name}={d}"
