"""MPICH's (Hydra) mpiexec; also Intel MPI, which uses Hydra."""
from __future__ import annotations

import re
from typing import Dict, List, Sequence, Tuple

from hpceval.launch.base import Launcher, register_launcher


@register_launcher
class MPICHLauncher(Launcher):
    flavour = "mpich"
    programs = ("mpiexec.mpich", "mpiexec.hydra")

    @classmethod
    def recognises(cls, version_text: str) -> bool:
        return "HYDRA" in version_text or "MPICH" in version_text or "Intel(R) MPI" in version_text

    @classmethod
    def version_line(cls, version_text: str) -> str:
        # Hydra's first line is "HYDRA build details:"; the version is on a line of its own.
        m = re.search(r"^\s*Version:\s*(\S+)", version_text, re.M)
        first = version_text.splitlines()[0].strip()
        return f"HYDRA {m.group(1)}" if m and first.startswith("HYDRA") else first

    def host_args(self, slots: Sequence[Tuple[str, int]]) -> List[str]:
        return ["-hosts", ",".join(f"{host}:{k}" for host, k in slots)]

    def command(self, nranks: int, argv: List[str], bind: str, env: Dict[str, str],
                slots: Sequence[Tuple[str, int]] = ()) -> List[str]:
        cmd = [self.program, "-n", str(nranks)] + (self.host_args(slots) if slots else [])
        cpus = self.cpu_list(bind, nranks)
        if cpus:
            cmd += ["-bind-to", "user:" + ",".join(map(str, cpus))]
        elif bind != "default" and not self.oversubscribed(self.per_node(nranks, slots)):
            cmd += ["-bind-to", "core" if bind == "core" else "none"]  # Hydra oversubscribes by itself
        for name in sorted(env):
            cmd += ["-genv", name, env[name]]
        return cmd + argv
