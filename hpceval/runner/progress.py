"""Progress display on stderr: a live bar on a terminal, one line per launch otherwise."""
from __future__ import annotations

from typing import Optional

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class ProgressDisplay:
    def __init__(self, total_launches: int, console: Optional[Console] = None):
        self.console = console or Console(stderr=True)
        self.total = total_launches
        self.live = self.console.is_terminal
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 console=self.console, transient=True, disable=not self.live)
        self.task = None

    def __enter__(self) -> "ProgressDisplay":
        self.progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def start(self, index: int, label: str, expected: int) -> None:
        self.task = self.progress.add_task(f"[{index}/{self.total}] {label}", total=expected or None)
        if not self.live:
            self.console.print(f"[{index}/{self.total}] {label} ...", highlight=False)

    def advance(self) -> None:
        if self.task is not None:
            self.progress.advance(self.task)

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
