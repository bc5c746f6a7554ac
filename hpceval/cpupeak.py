"""What a core can do at most, from what the machine states about itself (issue #28): the
double-precision vector unit its instruction set has (SSE2, AVX, AVX2 with FMA, AVX-512, Arm
NEON, SVE and its vector length) and its nominal clock (cpufreq's base frequency, or the
"@ 2.10GHz" of the CPU's model name; never the turbo maximum, never a virtual machine's
/proc/cpuinfo "cpu MHz", which is whatever the hypervisor reports).

How many FMA pipes a core has (one or two on AVX-512 parts, two on most AVX2 ones) is stated
nowhere the kernel shows, so a peak from these facts alone is a bound: flops/cycle =
doubles per vector x 2 (an FMA) x PIPES_BOUND. A spec sheet's figures replace the guesswork
(hpceval/specsheet.py). Recorded in the fingerprint (hpceval/fingerprint.py)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional

PIPES_BOUND = 2        # FMA (or add + multiply) pipes per core: no core has more, many have 2
# The CPU flags that decide the vector unit, widest first: (flag(s), name, doubles, FMA).
_UNITS = ((("avx512f", "fma"), "AVX-512 with FMA", 8, True),
          (("avx2", "fma"), "AVX2 with FMA", 4, True),
          (("avx",), "AVX", 4, False),
          (("sse2",), "SSE2", 2, False),
          (("asimd",), "NEON (Advanced SIMD) with FMA", 2, True))
FLAGS = ("sse2", "avx", "avx2", "fma", "avx512f", "asimd", "sve", "sve2")


class Unit(NamedTuple):
    name: str
    doubles: int          # per vector
    fma: bool


def _read(path: Path) -> Optional[str]:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _cpuinfo_field(text: str, keys: tuple) -> Optional[str]:
    for line in text.splitlines():
        key, _, val = line.partition(":")
        if key.strip() in keys:
            return val.strip()
    return None


def facts(cpuinfo: Optional[str] = None, sysfs: Path = Path("/sys/devices/system/cpu"),
          sve_path: Path = Path("/proc/sys/abi/sve_default_vector_length")) -> Dict[str, Any]:
    """The fingerprint's keys: cpu_isa (the flags above that the CPU reports), sve_bytes,
    nominal_mhz and nominal_mhz_source (None and why, when no nominal clock is readable)."""
    text = cpuinfo if cpuinfo is not None else (_read(Path("/proc/cpuinfo")) or "")
    flags = set((_cpuinfo_field(text, ("flags", "Features")) or "").split())
    sve = _read(sve_path) if "sve" in flags else None
    mhz, source = None, ("no nominal clock readable: cpufreq states no base frequency and the "
                         "CPU model name no clock (a virtual machine?)")
    khz = _read(sysfs / "cpu0" / "cpufreq" / "base_frequency")
    model = _cpuinfo_field(text, ("model name", "Model", "cpu model", "Processor")) or ""
    at = re.search(r"@\s*([\d.]+)\s*GHz", model)
    if khz and khz.isdigit():
        mhz, source = int(khz) / 1000.0, "cpufreq base_frequency"
    elif at:
        mhz, source = float(at.group(1)) * 1000.0, "the CPU model name"
    return {"cpu_isa": sorted(flags & set(FLAGS)),
            "sve_bytes": int(sve) if sve and sve.isdigit() else None,
            "nominal_mhz": mhz, "nominal_mhz_source": source}


def vector_unit(isa: List[str], sve_bytes: Optional[int] = None) -> Optional[Unit]:
    """The widest double-precision vector unit of these flags (SVE at its vector length)."""
    flags = set(isa or ())
    if "sve" in flags and sve_bytes:
        return Unit(f"SVE ({sve_bytes * 8} bit) with FMA", sve_bytes // 8, True)
    for need, name, doubles, fma in _UNITS:
        if flags.issuperset(need):
            return Unit(name, doubles, fma)
    return None


def flops_per_cycle_per_pipe(unit: Unit) -> int:
    """An FMA pipe: two flops per double a cycle; without FMA an add or a multiply pipe: one."""
    return unit.doubles * (2 if unit.fma else 1)
