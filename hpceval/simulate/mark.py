"""What marks a simulated run's figures (docs/simulate.md): its records were tagged
`where.placement = "simulated"` by the runner and its fingerprint names the platform. Every
view puts SUFFIX beside a simulated figure; a simulated point is never compared with a real one.
No imports: the analysis, the command line and the report all use it."""
from __future__ import annotations

from typing import Any, Dict, Optional

SUFFIX = " (simulated)"


def record_simulated(rec: Optional[Dict[str, Any]]) -> bool:
    where = (rec or {}).get("where") or ((rec or {}).get("extra") or {}).get("where") or {}
    return where.get("placement") == "simulated"


def tag(rec: Optional[Dict[str, Any]]) -> str:
    """SUFFIX for a simulated record's figure, else ''."""
    return SUFFIX if record_simulated(rec) else ""


def platform(run: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The simulated platform of a run's fingerprint, None for a real machine."""
    return ((run or {}).get("fingerprint") or {}).get("simulated") or None


def run_tag(run: Dict[str, Any]) -> str:
    return SUFFIX if platform(run) else ""


def platform_line(run: Dict[str, Any]) -> Optional[str]:
    """'SIMULATED (SimGrid SMPI) platform fat-tree-64x4-...: 64 nodes x 4, latency 1.5 us, ...'"""
    sim = platform(run)
    if not sim:
        return None
    d = sim.get("description") or {}
    parts = [f"{sim.get('nodes')} nodes x {sim.get('ppn')} ranks"]
    if d:
        parts += [f"{d.get('topology')}", f"latency {d['latency'] * 1e6:.3g} us",
                  f"bandwidth {d['bandwidth'] / 1e9:.3g} GB/s", f"{d['flops'] / 1e9:.3g} Gflop/s "
                  "per core", f"model {d.get('model')}"]
    else:
        parts.append(f"from {sim.get('source')}")
    return (f"SIMULATED (SimGrid SMPI) platform {sim.get('name')}: " + ", ".join(parts)
            + twin_source(run))


def twin_source(run: Dict[str, Any]) -> str:
    """'; twin of run UUID on machine HASH (host)' or '; twin of spec sheet PATH', else ''."""
    src = (platform(run) or {}).get("twin") or {}
    if "run" in src:
        return (f"; twin of run {src['run']} on machine {str(src.get('machine'))[:12]} "
                f"({src.get('host')})")
    return f"; twin of spec sheet {src['spec']}" if "spec" in src else ""


def mismatch(a: Optional[Dict[str, Any]], b: Optional[Dict[str, Any]]) -> bool:
    """One record simulated and the other measured on hardware: never compared."""
    return record_simulated(a) != record_simulated(b)
