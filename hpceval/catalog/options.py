"""The binaries' option tables: every parameter a binary takes is declared once, in its C table
(csrc/harness/options.h), and reaches the catalog from there (issue #47).

`hpceval-X --describe` prints the table as JSON; the build writes it beside the binary
(BINDIR/hpceval-X.options.json, csrc/Makefile), and scripts/options_snapshot.py gathers those
into options.json here: the snapshot the catalog reads, so planning is the same with or without
a build at hand (a login node's dry run); a binary it does not have yet (a new one, one built
for HPCEVAL_CATALOG_PATH) is read from the build. tests/catalog/test_options.py fails while the snapshot
differs from the build. A benchmark's module names the options it offers and overrides only what
planning changes (a list swept over launches, a narrower range), each with its reason."""
from __future__ import annotations

import dataclasses
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Tuple

from hpceval.catalog.params import Param, parse_size
from hpceval.paths import bin_dir

SNAPSHOT = Path(__file__).resolve().parent / "options.json"
# The harness's options (csrc/harness/harness.c), in every binary's table after its own.
COMMON = ("warmup", "min-reps", "max-reps", "ci-target", "budget", "inject")
# C type (--describe's "type") -> Param kind
KINDS = {"int": "int", "size": "size", "double": "float", "string": "str", "sizes": "sizes",
         "choice": "choice", "choices": "words", "grids": "grids"}
_RANGED = ("int", "size", "float", "sizes", "ints", "floats")


@lru_cache(maxsize=None)
def _snapshot() -> Dict[str, List[Dict[str, Any]]]:
    return json.loads(SNAPSHOT.read_text())


@lru_cache(maxsize=None)
def _built(binary: str) -> List[Dict[str, Any]]:
    """A binary the snapshot does not have yet (a new one; one from HPCEVAL_CATALOG_PATH's
    build): its table as the build wrote it."""
    path = bin_dir() / f"hpceval-{binary}.options.json"
    try:
        return json.loads(path.read_text())["options"]
    except OSError:
        raise KeyError(f"no binary hpceval-{binary} in {SNAPSHOT.name} nor {path} (build it; "
                       "scripts/options_snapshot.py)") from None


def table(binary: str) -> Dict[str, Dict[str, Any]]:
    """hpceval-<binary>'s options by name: the snapshot's, else the build's."""
    snapshot = _snapshot()
    return {o["name"]: o for o in (snapshot[binary] if binary in snapshot else _built(binary))}


def choices(binary: str, name: str) -> Tuple[str, ...]:
    """The words hpceval-<binary>'s option --name takes, in the table's order."""
    return tuple(table(binary)[name]["choices"].split("|"))


def _default(kind: str, text: str) -> Any:
    if kind == "int":
        return int(text)
    if kind == "size":
        return parse_size(text)
    if kind == "float":
        return float(text)
    if kind == "sizes":
        return sorted({parse_size(t) for t in text.split(",") if t})
    if kind == "floats":
        return [float(t) for t in text.split(",")]
    return text         # choice, str; a list kind's text ("all", "4x2") is parsed by Param.initial


def from_binary(binary: str, option: str, **override: Any) -> Param:
    """The Param of hpceval-<binary>'s option --<option>; override: Param fields planning changes
    (a kind that sweeps a list over launches, a default, a narrower range; name: the parameter's
    own, as "patterns" sweeps --pattern; more: what the planner adds to the help, such as a
    sweep's words). The help is the binary's, so `hpceval list -v` says what --help says."""
    try:
        o = table(binary)[option]
    except KeyError:
        raise KeyError(f"hpceval-{binary} has no option --{option}") from None
    kind = override.pop("kind", KINDS[o["type"]])
    ranged = kind in _RANGED and o["type"] in ("int", "size", "double", "sizes")
    fields = dict(min=o["min"] if ranged else None, max=o["max"] if ranged else None,
                  choices=tuple(o["choices"].split("|")) if o["choices"] else (),
                  every=o["all"], dims=o["dims"] or 3, noun=o["what"], binary=binary,
                  at_most=o.get("at_most", ""))
    name = override.pop("name", option)
    if name != option:
        fields["option"] = f"--{option}"
    fields.update(override)
    if "default" not in fields:
        fields["default"] = _default(kind, o["default"])
    more = fields.pop("more", "")
    return Param(name, kind, help=o["help"] + (f"; {more}" if more else ""), **fields)


def options(binary: str, names: str, **overrides: Dict[str, Any]) -> Tuple[Param, ...]:
    """The Params of hpceval-<binary>'s options `names` (space-separated, in the order
    `hpceval list` shows them), then the harness's COMMON ones. overrides: per option (its
    name with '_' for '-'), the Param fields planning changes (from_binary)."""
    over = {k.replace("_", "-"): v for k, v in overrides.items()}
    unknown = set(over) - set(names.split()) - set(COMMON)
    if unknown:
        raise KeyError(f"{binary}: overrides of options not offered: {sorted(unknown)}")
    return tuple(from_binary(binary, n, **dict(over.get(n, {})))
                 for n in names.split() + list(COMMON))


def same_as(param: Param, **change: Any) -> Param:
    """A Param with some fields changed (dataclasses.replace, for a shared declaration)."""
    return dataclasses.replace(param, **change)
