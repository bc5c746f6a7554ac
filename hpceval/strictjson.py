"""The one strict JSON reader of what hpceval reads back (records from its binaries, exports to
import): every number finite, every integer within SQLite's 64 bits and every key of an object
once. Python's json accepts NaN and Infinity, reads 1e400 as inf, takes any integer, and lets
the last of two equal keys win (a second "uuid" or "median" would replace the first unseen)."""
from __future__ import annotations

import json
import math
from typing import Any, Dict, List, Optional, Set, Tuple


class OutOfRange(ValueError):
    """A number JSON can write but a measurement cannot be (NaN, inf, 1e400, 2^70)."""


class DuplicateKey(ValueError):
    """An object that names one key twice: which of the two values was meant is unknown."""


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


def _object(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: Set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise DuplicateKey(f"duplicate key {key[:40]!r} in one object")
    return obj


def loads(text: str) -> Any:
    """json.loads, refusing what is not finite or not a 64-bit integer (OutOfRange) and a key
    named twice in one object (DuplicateKey), both ValueErrors; malformed JSON raises json's
    own ValueError."""
    return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int64,
                      object_pairs_hook=_object)


def first_nonfinite(obj: Any, path: str = "") -> Optional[Tuple[str, float]]:
    """(where, value) of the first NaN or infinity in obj ('records[0].stats.median'), or None:
    what an export cannot write, since loads() would refuse it on the way back."""
    if isinstance(obj, float):
        return None if math.isfinite(obj) else (path or "top level", obj)
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(
        obj, list) else ()
    for key, value in items:
        found = first_nonfinite(value, f"{path}[{key}]" if isinstance(key, int) else
                                f"{path}.{key}" if path else str(key))
        if found:
            return found
    return None
