"""A machine's spec sheet: the vendor's nominal figures, which hpceval sets its measurements
against ("promised against delivered", issue #28). A small TOML or JSON file of flat keys
(docs/dense.md#spec-sheets):

    name = "Vendor V, model M"             # optional, shown with the figures
    peak_gflops_per_node = 3072            # double precision
    cores_per_node = 64
    memory_bandwidth_gbs_per_node = 409.6  # GB/s, 1e9 bytes/s
    network_latency_us = 1.2               # per message, one link
    network_bandwidth_mbs = 12500          # MB/s, 1e6 bytes/s, one link
    nodes = 16
    clock_mhz = 2000                       # nominal, per core (optional)
    flops_per_cycle = 32                   # double precision, per core (optional)

Every figure is optional, but at least one must be there; a key not listed, a value that is
not a finite number or lies outside its sane range, and a peak that contradicts its own clock,
flops per cycle and cores are refused in one line (exit 2). The loaded figures are stored with
the run (settings "spec")."""
from __future__ import annotations

import json
import math
import tomllib
from typing import Any, Dict, Tuple

from hpceval.errors import UsageError
from hpceval.infiles import parse_nested, read_text

# key: (unit, least, most, integer): a value outside (least, most] is absurd
FIGURES: Dict[str, Tuple[str, float, float, bool]] = {
    "peak_gflops_per_node": ("GFlop/s", 0.0, 1e7, False),
    "cores_per_node": ("", 0.0, 1e6, True),
    "memory_bandwidth_gbs_per_node": ("GB/s", 0.0, 1e5, False),
    "network_latency_us": ("us", 0.0, 1e6, False),
    "network_bandwidth_mbs": ("MB/s", 0.0, 1e8, False),
    "nodes": ("", 0.0, 1e8, True),
    "clock_mhz": ("MHz", 1.0, 2e4, False),
    "flops_per_cycle": ("", 0.0, 4096, False),
}
LIMIT = 1 << 20          # a spec sheet is a few lines
CONSISTENT = 0.01        # peak vs clock x flops/cycle x cores: 1% apart at most


def _parse(text: str, path: str) -> Any:
    parse = json.loads if text.lstrip().startswith("{") else tomllib.loads
    try:
        return parse_nested(parse, text, f"spec {path}")
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"spec {path}: neither JSON nor TOML ({str(exc).splitlines()[0]})") from None


def _figure(key: str, value: Any, path: str) -> float:
    unit, least, most, integer = FIGURES[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UsageError(f"spec {path}: {key} = {value!r} is not a number")
    if integer and value != int(value):
        raise UsageError(f"spec {path}: {key} = {value!r} is not a whole number")
    if not least < value <= most:
        raise UsageError(f"spec {path}: {key} = {value:g} {unit} is absurd (expected above "
                         f"{least:g} and at most {most:g})".replace("  ", " "))
    return int(value) if integer else float(value)


def check(doc: Any, path: str) -> Dict[str, Any]:
    """The spec's figures, checked (UsageError with a one-line reason)."""
    if not isinstance(doc, dict):
        raise UsageError(f"spec {path}: expected keys and values, got {type(doc).__name__}")
    unknown = sorted(set(doc) - set(FIGURES) - {"name"})
    if unknown:
        raise UsageError(f"spec {path}: unknown key '{unknown[0]}' (known: name, "
                         f"{', '.join(FIGURES)})")
    out: Dict[str, Any] = {k: _figure(k, doc[k], path) for k in FIGURES if k in doc}
    if not out:
        raise UsageError(f"spec {path}: no figures (one of {', '.join(FIGURES)})")
    if "name" in doc:
        if not isinstance(doc["name"], str) or len(doc["name"]) > 200:
            raise UsageError(f"spec {path}: name must be text of at most 200 characters")
        out["name"] = doc["name"]
    parts = ("clock_mhz", "flops_per_cycle", "cores_per_node", "peak_gflops_per_node")
    if all(k in out for k in parts):
        derived = out["clock_mhz"] * 1e-3 * out["flops_per_cycle"] * out["cores_per_node"]
        if abs(derived / out["peak_gflops_per_node"] - 1) > CONSISTENT:
            raise UsageError(f"spec {path}: peak_gflops_per_node {out['peak_gflops_per_node']:g} "
                             f"contradicts clock x flops/cycle x cores = {derived:g}")
    return out


def read(path: str) -> Any:
    """A spec sheet's document, unchecked (TOML, or JSON when it starts with '{')."""
    return _parse(read_text(path, f"spec {path}", LIMIT), path)


def load(path: str) -> Dict[str, Any]:
    """A spec sheet from a file, checked."""
    return check(read(path), path)
