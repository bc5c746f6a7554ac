"""SimGrid SMPI's smpirun: every rank of a launch simulated inside one process, on the platform
of the run's simulation (hpceval/simulate, docs/simulate.md). Ranks are placed K per host in
the hostfile's order, like mpirun's placement (hpceval/runner/placement.py)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from hpceval.errors import UsageError
from hpceval.launch.base import Launcher, register_launcher


@register_launcher
class SMPILauncher(Launcher):
    flavour = "smpi"
    programs = ("smpirun",)
    simulated = True

    def __init__(self, program: str, version: str, cores: int):
        super().__init__(program, version, cores)
        from hpceval.simulate.session import active
        self.sim = active()
        if self.sim is None:
            raise UsageError("smpirun runs simulated platforms only: give --simulate or "
                             "--platform (docs/simulate.md)")

    @classmethod
    def recognises(cls, version_text: str) -> bool:
        return version_text.startswith("SimGrid")

    def cpu_list(self, bind: str, nranks: int) -> Optional[List[int]]:
        return None                      # simulated hosts: nothing to bind

    def host_args(self, slots: Sequence[Tuple[str, int]]) -> List[str]:
        return []                        # the hostfile places K ranks per host, in order

    def oversubscribed(self, nranks: int) -> bool:
        return nranks > self.sim["ppn"]

    def max_ranks(self) -> int:
        return self.sim["nodes"] * self.sim["ppn"]

    def max_ranks_reason(self) -> str:
        return (f"more than the simulated platform's {self.sim['nodes']} hosts x "
                f"{self.sim['ppn']} ranks per host")

    def command(self, nranks: int, argv: List[str], bind: str, env: Dict[str, str],
                slots: Sequence[Tuple[str, int]] = ()) -> List[str]:
        if nranks > self.max_ranks():
            raise UsageError(f"{nranks} ranks: refused, {self.max_ranks_reason()}")
        from hpceval.simulate.session import launch_cfg
        return [self.program, "-np", str(nranks), "-platform", self.sim["platform_file"],
                "-hostfile", self._hostfile(slots), *launch_cfg(self.sim, argv, nranks),
                "--log=root.thres:critical", *argv]

    def _hostfile(self, slots: Sequence[Tuple[str, int]]) -> str:
        """The platform's hostfile (K ranks a host, in order), or beside it one of fewer ranks
        a host where the launch's slots have fewer (a rung its benchmark's rank rule placed
        so, hpceval/catalog/ladder.py), written once."""
        per = max((k for _, k in slots), default=self.sim["ppn"])
        if len(slots) < 2 or per >= self.sim["ppn"]:
            return self.sim["hostfile"]
        path = Path(self.sim["hostfile"]).with_name(f"hosts-{per}.txt")
        if not path.exists():
            from hpceval.simulate.session import placement
            part = path.with_name(f".{path.name}.{os.getpid()}")
            with open(part, "w") as f:      # a host at a time, as the platform's own
                f.writelines(f"{h}\n" * per for h in placement(self.sim, None)[0])
            part.replace(path)
        return str(path)

    def describe(self) -> Dict[str, str]:
        return {**super().describe(), "simulated": self.sim["name"]}
