"""Progress display on stderr: on a terminal a live bar per launch (the point being measured,
points done of points planned, elapsed and estimated time left), above it the launches done;
one line per launch otherwise (logs and pipes get no control characters)."""
from __future__ import annotations

from typing import Any, Dict, Optional

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)

POINT_WIDTH = 36          # the current point's text, cut so the bar fits a 100-column terminal


def point_text(record: Optional[Dict[str, Any]]) -> str:
    """The point a result belongs to, e.g. "bytes=65536 ranks=0-1", at most POINT_WIDTH long."""
    params = (record or {}).get("params") or {}
    text = " ".join(f"{k}={v}" for k, v in params.items())
    return text if len(text) <= POINT_WIDTH else text[:POINT_WIDTH - 1] + "…"


class ProgressDisplay:
    def __init__(self, total_launches: int, console: Optional[Console] = None):
        self.console = console or Console(stderr=True)
        self.total = total_launches
        self.live = self.console.is_terminal
        self.progress = Progress(TextColumn("{task.description}"),
                                 TextColumn("[dim]{task.fields[point]}[/dim]"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("eta"), TimeRemainingColumn(),
                                 console=self.console, transient=True, disable=not self.live)
        self.task = None

    def __enter__(self) -> "ProgressDisplay":
        self.progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def start(self, index: int, label: str, expected: int) -> None:
        self.task = self.progress.add_task(f"[{index}/{self.total}] {label}", total=expected or None,
                                           point="")
        if not self.live:
            self.console.print(f"[{index}/{self.total}] {label} ...", highlight=False)

    def advance(self, record: Optional[Dict[str, Any]] = None) -> None:
        """One more result; `record` (the result) names the point now being measured."""
        if self.task is not None:
            self.progress.update(self.task, advance=1, point=point_text(record))

    def finish(self, index: int, label: str, status: str, elapsed: float, results: int,
               message: Optional[str]) -> None:
        if self.task is not None:
            self.progress.remove_task(self.task)
            self.task = None
        colour = "green" if status == "ok" else "red"
        line = (f"[{index}/{self.total}] {label}: [{colour}]{status}[/{colour}] "
                f"({results} results, {elapsed:.1f} s)")
        if message:
            line += f" - {message}"
        self.console.print(line, highlight=False)
