"""The one strict JSON reader of what hpceval reads back (records from its binaries, exports to
import): every number finite and every integer within SQLite's 64 bits. Python's json accepts
NaN and Infinity, reads 1e400 as inf, and any integer, without a word."""
from __future__ import annotations

import json
import math
from typing import Any


class OutOfRange(ValueError):
    """A number JSON can write but a measurement cannot be (NaN, inf, 1e400, 2^70)."""


def _constant(name: str) -> float:
    raise OutOfRange(f"non-finite number {name}")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise OutOfRange(f"non-finite number {text[:40]} (out of a double's range)")
    return value


def _int64(text: str) -> int:
    value = int(text)
    if not -2 ** 63 <= value < 2 ** 63:
        raise OutOfRange(f"integer {text[:40]}... is out of range")
    return value


def loads(text: str) -> Any:
    """json.loads, refusing what is not finite or not a 64-bit integer (OutOfRange, a
    ValueError; malformed JSON raises json's own ValueError)."""
    return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int64)
