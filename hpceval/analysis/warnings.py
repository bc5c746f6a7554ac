"""What a reader of a run must know before trusting its numbers: one line each, with a count
and where the details are. A registry (register_warning): each entry looks at the run and
returns a Notice or None; `warnings(run)` gives them in registration order."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Optional

from hpceval.analysis.hierarchy import hierarchy
from hpceval.analysis.oversubscription import oversubscribed_launches
from hpceval.analysis.significance import run_quality
from hpceval.quality import at_floor, field

Run = Dict[str, Any]


class Notice(NamedTuple):
    kind: str            # short name: "oversubscribed", "unconverged", ...
    text: str            # one sentence
    where: str           # the part of the run with the details: card, results, launches, figures
    severity: str = "warn"   # "warn" or "bad"


WARNINGS: List[Callable[[Run], Optional[Notice]]] = []


def register_warning(check: Callable[[Run], Optional[Notice]]) -> Callable[[Run], Optional[Notice]]:
    WARNINGS.append(check)
    return check


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "es" if word.endswith("ch") else "s")


def _points(run: Run) -> List[Dict[str, Any]]:
    return [r for r in run.get("records") or [] if isinstance(r.get("stats"), dict)]


@register_warning
def status(run: Run) -> Optional[Notice]:
    s = str(run.get("status") or "unknown")
    return None if s == "ok" else Notice("status", f"The run is {s}: results may be incomplete.",
                                          "launches", "bad")


@register_warning
def failed_launches(run: Run) -> Optional[Notice]:
    bad = [l for l in run.get("launches") or [] if l.get("status") != "ok"]
    if not bad:
        return None
    names = ", ".join(dict.fromkeys(str(l.get("benchmark")) for l in bad))
    return Notice("failed", f"{_plural(len(bad), 'launch')} failed or a check did not pass "
                   f"({names}).", "launches", "bad")


@register_warning
def failed_checks(run: Run) -> Optional[Notice]:
    bad = [r for r in _points(run) if field(r, "check") not in (None, "ok")]
    return Notice("check", f"{_plural(len(bad), 'point')} failed their data check.", "results",
                   "bad") if bad else None


@register_warning
def oversubscription(run: Run) -> Optional[Notice]:
    over = oversubscribed_launches(run)
    if not over:
        return None
    names = ", ".join(dict.fromkeys(str(l.get("label") or l.get("benchmark")) for l in over))
    cores = (run.get("fingerprint") or {}).get("cores", "?")
    return Notice("oversubscribed", f"{_plural(len(over), 'launch')} put more ranks than the "
                   f"{cores} cores ({names}): their times include waiting for a core."
                   , "launches")


@register_warning
def stale_build(run: Run) -> Optional[Notice]:
    name = (run.get("settings") or {}).get("build_stale")
    return Notice("stale-build", f"Build '{name}' was made from other C sources than this "
                  f"hpceval's: its binaries measured older code ('hpceval build --name {name}' "
                  "makes it again).", "launches", "bad") if name else None


@register_warning
def disturbed(run: Run) -> Optional[Notice]:
    q = run_quality(_points(run))
    if not q["disturbed"]:
        return None
    return Notice("disturbed", f"{q['disturbed']} of {q['points']} points were disturbed while "
                   f"they ran ({', '.join(q['reasons'])}): other load on the machine.", "results")


@register_warning
def unconverged(run: Run) -> Optional[Notice]:
    q = run_quality(_points(run))
    if not q["unconverged"]:
        return None
    return Notice("unconverged", f"{q['unconverged']} of {q['points']} points did not reach the "
                   "CI target within the budget: ringed or hatched in the figures.", "results")


@register_warning
def floor(run: Run) -> Optional[Notice]:
    n = sum(1 for r in _points(run) if at_floor(r))
    return Notice("floor", f"{_plural(n, 'point')} hit the 1 ns floor after the barrier was "
                   "subtracted: not measurements (their raw time is shown beside them, they are "
                   "not drawn).", "results") if n else None


@register_warning
def caches(run: Run) -> Optional[Notice]:
    h = hierarchy(run)
    if h is None or h["agrees"]:
        return None
    flags = [f"{r['level']}: {r['flag']}" for r in h["levels"] if r.get("flag")] + h["notes"]
    return Notice("caches", "The measured memory hierarchy disagrees with the caches the "
                   f"machine reports ({'; '.join(flags)}).", "figures")


def warnings(run: Run) -> List[Notice]:
    out = []
    for check in WARNINGS:
        w = check(run)
        if w is not None:
            out.append(w)
    return out
