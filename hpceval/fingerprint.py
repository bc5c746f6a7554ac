"""The fingerprint of this machine and software stack, stored once per distinct value and
linked from every run. Read from /proc and /sys (Linux), the MPI launcher and the build."""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import socket
from pathlib import Path
from typing import Any, Dict, List, Optional

from hpceval import cpupeak, paths

SYS_CPU = Path("/sys/devices/system/cpu")
SYS_NODE = Path("/sys/devices/system/node")

# Environment that changes what a benchmark measures. Volatile per-job values (job ids, node
# lists) are left out so the same machine and setup keep one fingerprint.
ENV_PREFIXES = ("OMP_", "GOMP_", "KMP_", "OMPI_MCA_", "PMIX_MCA_", "MPICH_", "MPIR_CVAR_", "I_MPI_",
                "UCX_", "FI_", "PSM2_", "HPCEVAL_")
ENV_EXCLUDE = ("HPCEVAL_DB", "HPCEVAL_BINDIR", "HPCEVAL_CATALOG_PATH", "HPCEVAL_SIMULATION")
SLURM_KEEP = ("SLURM_NNODES", "SLURM_NTASKS", "SLURM_NTASKS_PER_NODE", "SLURM_CPUS_PER_TASK",
              "SLURM_CPU_BIND", "SLURM_DISTRIBUTION", "SLURM_CLUSTER_NAME", "SLURM_JOB_PARTITION")


def _read(path: Path) -> Optional[str]:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _size_bytes(text: Optional[str]) -> Optional[int]:
    m = re.match(r"^(\d+)\s*([KMG]?)", text or "")
    if not m:
        return None
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)]


def _meminfo() -> Dict[str, int]:
    out: Dict[str, int] = {}
    for line in (_read(Path("/proc/meminfo")) or "").splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            out[key] = int(parts[0]) * (1024 if len(parts) > 1 and parts[1] == "kB" else 1)
    return out


def mem_available_bytes() -> int:
    info = _meminfo()
    return info.get("MemAvailable", info.get("MemFree", 0))


def _cpu_model() -> str:
    for line in (_read(Path("/proc/cpuinfo")) or "").splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "cpu model", "Processor"):
            return value.strip()
    return platform.processor() or platform.machine()


def _topology() -> Dict[str, int]:
    """Sockets, physical cores and hardware threads among the CPUs this process may use."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))
    packages, cores = set(), set()
    for c in cpus:
        topo = SYS_CPU / f"cpu{c}" / "topology"
        pkg = _read(topo / "physical_package_id") or "0"
        core = _read(topo / "core_id") or str(c)
        packages.add(pkg)
        cores.add((pkg, core))
    return {"sockets": len(packages) or 1, "cores": len(cores) or len(cpus), "threads": len(cpus)}


def _caches() -> List[Dict[str, Any]]:
    caches = []
    for idx in sorted((SYS_CPU / "cpu0" / "cache").glob("index*")):
        kind = _read(idx / "type")
        if kind == "Instruction":
            continue
        shared = _read(idx / "shared_cpu_list") or ""
        ncpus = 0
        for part in filter(None, shared.split(",")):
            lo, _, hi = part.partition("-")
            ncpus += (int(hi) - int(lo) + 1) if hi else 1
        caches.append({"level": int(_read(idx / "level") or 0), "type": kind,
                       "size_bytes": _size_bytes(_read(idx / "size")),
                       "line_bytes": int(_read(idx / "coherency_line_size") or 0) or None,
                       "shared_by_cpus": ncpus or None})
    return caches


def llc_bytes(caches: List[Dict[str, Any]]) -> int:
    sizes = [c["size_bytes"] for c in caches if c.get("size_bytes")]
    return max(sizes) if sizes else 32 << 20


def _numa_nodes() -> int:
    return len(list(SYS_NODE.glob("node[0-9]*"))) or 1


def _os_name() -> str:
    for line in (_read(Path("/etc/os-release")) or "").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip('"')
    return platform.system()


def _thp() -> Optional[str]:
    text = _read(Path("/sys/kernel/mm/transparent_hugepage/enabled"))
    m = re.search(r"\[(\w+)\]", text or "")
    return m.group(1) if m else None


def _governor() -> Optional[str]:
    return _read(SYS_CPU / "cpu0" / "cpufreq" / "scaling_governor")


def _environment() -> Dict[str, str]:
    return {k: v for k, v in sorted(os.environ.items())
            if (k.startswith(ENV_PREFIXES) and k not in ENV_EXCLUDE) or k in SLURM_KEEP}


def build_info() -> Dict[str, Any]:
    """Compiler, flags and MPI wrapper the C core was built with (written by csrc/Makefile)."""
    text = _read(paths.build_info_path())
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return {"error": "unreadable buildinfo.json"}


# Recorded but not part of the machine's identity: a field added later must not make the same
# machine a new one in `history`.
NOT_HASHED = ("hash", "max_mhz", "cpu_isa", "sve_bytes", "nominal_mhz", "nominal_mhz_source")


def _max_mhz() -> Optional[float]:
    """The CPU's clock: cpufreq's maximum (stable under frequency scaling), else /proc/cpuinfo's
    'cpu MHz' (a VM's fixed clock)."""
    khz = _read(Path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"))
    if khz and khz.strip().isdigit():
        return int(khz.strip()) / 1000.0
    for line in (_read(Path("/proc/cpuinfo")) or "").splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "cpu MHz":
            try:
                return round(float(value), 1)
            except ValueError:
                return None
    return None


def _simulated() -> Dict[str, Any]:
    """A simulated run's platform (hpceval/simulate): its own machine, never this one."""
    from hpceval.simulate.session import fingerprint_fields
    return fingerprint_fields()


def fingerprint_hash(fp: Dict[str, Any]) -> str:
    body = {k: v for k, v in fp.items() if k not in NOT_HASHED}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def machine_fingerprint(mpi: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """This machine's fingerprint; `mpi` is the launcher's description when one was chosen."""
    caches = _caches()
    fp: Dict[str, Any] = {
        "hostname": socket.gethostname(),
        "arch": platform.machine(),
        "cpu_model": _cpu_model(),
        "max_mhz": _max_mhz(),
        **cpupeak.facts(),            # ISA and nominal clock: the peak's facts (issue #28)
        **_topology(),
        "numa_nodes": _numa_nodes(),
        "caches": caches,
        "memory_bytes": _meminfo().get("MemTotal"),
        "os": _os_name(),
        "kernel": platform.release(),
        "thp": _thp(),
        "cpu_governor": _governor(),
        "mpi": mpi or {},
        "compiler": build_info(),
        "environment": _environment(),
        **_simulated(),
    }
    fp["hash"] = fingerprint_hash(fp)
    return fp
