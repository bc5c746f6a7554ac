"""Typed benchmark parameters: parsed and range-checked in Python before anything is launched,
then handed to the C binary as `--name value` (which checks them again)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from hpceval.errors import UsageError

_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE_RE = re.compile(r"^\s*(\d+)\s*([KMGT]?)(?:i?B)?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """'4K' -> 4096, '1M' -> 1048576, '100' -> 100 (binary suffixes, as the C harness)."""
    m = _SIZE_RE.match(str(text))
    if not m:
        raise ValueError(f"'{text}' is not a size (a non-negative integer with optional K, M, G)")
    return int(m.group(1)) * _SUFFIX[m.group(2).upper()]


def format_size(n: int) -> str:
    for suffix in ("G", "M", "K"):
        unit = _SUFFIX[suffix]
        if n >= unit and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


@dataclass(frozen=True)
class Param:
    name: str
    kind: str                      # int | float | floats | size | sizes | choice | str
    default: Any
    help: str
    min: Optional[float] = None
    max: Optional[float] = None
    choices: Sequence[str] = field(default_factory=tuple)
    option: Optional[str] = None   # the C option, when it differs from --name
    above: bool = False            # min is excluded: a value must be above it (> 0: positive)
    increasing: bool = False       # floats: each item above the one before
    max_items: int = 4096          # floats: at most this many items

    def parse(self, text: str) -> Any:
        """Parse a --set value; raise UsageError with a one-line reason."""
        try:
            value = self._convert(text)
        except ValueError as exc:
            raise UsageError(f"--set {self.name}: {exc}") from None
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, (int, float)) and not self._in_range(v):
                shown = text if self.kind != "floats" else f"{v:g}"
                raise UsageError(f"--set {self.name}: {shown} is out of range "
                                 f"{'(' if self.above else '['}{self._fmt(self.min)}, "
                                 f"{self._fmt(self.max)}]")
        if self.increasing and any(b <= a for a, b in zip(value, value[1:])):
            raise UsageError(f"--set {self.name}: {text} is not increasing")
        return value

    def _in_range(self, v: float) -> bool:
        if self.min is not None and (v <= self.min if self.above else v < self.min):
            return False
        return self.max is None or v <= self.max

    def _convert(self, text: str) -> Any:
        if self.kind == "int":
            try:
                return int(text)
            except ValueError:
                raise ValueError(f"'{text}' is not an integer") from None
        if self.kind == "float":
            try:
                value = float(text)
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
            if not items:
                raise ValueError("empty list of sizes")
            return sorted({parse_size(t) for t in items})
        if self.kind == "choice":
            if text not in self.choices:
                raise ValueError(f"'{text}' is not one of {', '.join(self.choices)}")
            return text
        return str(text)

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
                v = float(t)
            except ValueError:
                raise ValueError(f"'{t}' is not a number (in the comma list '{text}')") from None
            if not math.isfinite(v):
                raise ValueError(f"'{t}' is not a finite number")
            out.append(v)
        return out

    def _fmt(self, v: Optional[float]) -> str:
        if v is None:
            return "..."
        return format_size(int(v)) if self.kind in ("size", "sizes") else f"{v:g}"

    def to_arg(self, value: Any) -> list[str]:
        opt = self.option or f"--{self.name}"
        if isinstance(value, list):
            return [opt, ",".join(repr(v) if isinstance(v, float) else str(v) for v in value)]
        return [opt, str(value)]

    def describe(self) -> str:
        d = self.default
        if isinstance(d, list) and self.kind == "floats":
            d = ",".join(f"{x:g}" for x in d)
        elif isinstance(d, list):
            d = f"{format_size(d[0])}..{format_size(d[-1])} ({len(d)} values)" if d else "auto"
        elif d is None:
            d = "auto"
        return f"{self.name}={d}"
