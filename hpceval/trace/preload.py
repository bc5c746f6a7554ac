"""The environment that traces an MPI program: the PMPI library preloaded, its raw files
written to a directory (docs/trace.md). Shared by `hpceval trace` and traced launches."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, Optional, Union

from hpceval import paths


def trace_env(directory: Union[str, Path],
              max_events: Optional[Union[int, str]] = None) -> Dict[str, str]:
    """LD_PRELOAD (the library ahead of any preload already set), HPCEVAL_TRACE_DIR and, when
    given, HPCEVAL_TRACE_MAX_EVENTS (events kept per rank)."""
    lib = str(paths.trace_library().resolve())
    pre = os.environ.get("LD_PRELOAD", "").strip()
    env = {"LD_PRELOAD": f"{lib}:{pre}" if pre else lib,
           "HPCEVAL_TRACE_DIR": str(Path(directory).resolve())}
    if max_events is not None:
        env["HPCEVAL_TRACE_MAX_EVENTS"] = str(max_events)
    return env
