"""The launch progress display: on a terminal the bar shows the point being measured, points
done of planned, elapsed and estimated time, within 100 columns; elsewhere plain lines only."""
import io

from rich.console import Console

from hpceval.runner.progress import POINT_WIDTH, ProgressDisplay, point_text


def test_bar_shows_point_counts_and_eta_in_100_columns():
    con = Console(file=io.StringIO(), force_terminal=True, width=100, color_system=None)
    with ProgressDisplay(3, con) as d:
        d.start(2, "pingpong np=2", 4)
        d.advance({"params": {"bytes": 65536, "ranks": "0-1"}})
        shot = Console(file=io.StringIO(), width=100, color_system=None, record=True)
        shot.print(d.progress.make_tasks_table(d.progress.tasks))
        text = shot.export_text()
        d.finish(2, "pingpong np=2", "ok", 1.5, 4, None)
    assert "[2/3] pingpong np=2" in text and "bytes=65536 ranks=0-1" in text
    assert "1/4" in text and "0:00:00" in text and "eta" in text
    assert max(len(line) for line in text.splitlines()) <= 100


def test_not_a_terminal_prints_lines_only():
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=False, width=100)
    with ProgressDisplay(1, con) as d:
        d.start(1, "stream np=1", 3)
        for i in range(3):
            d.advance({"params": {"array": i}})
        d.finish(1, "stream np=1", "ok", 0.25, 3, None)
    assert buf.getvalue() == "[1/1] stream np=1 ...\n[1/1] stream np=1: ok (3 results, 0.2 s)\n"


def test_point_text_is_cut_to_its_width():
    long = {"params": {f"p{i}": "x" * 10 for i in range(8)}}
    assert len(point_text(long)) == POINT_WIDTH and point_text(long).endswith("…")
    assert point_text(None) == "" and point_text({"params": {"bytes": 8}}) == "bytes=8"
