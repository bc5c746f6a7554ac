"""The headline table (run, show, submit) fits the terminal: the least needed columns
(statistic, then n, then the CI) are left out, figure names and verdicts wrap, never cut."""
from helpers import FAST

RUN = ["run", "pingpong", "mem-latency", *FAST, "--set", "pingpong.refine=0",
       "--set", "pingpong.sizes=8,1K", "--set", "mem-latency.sizes=4K,64K"]


def _table(stdout: str) -> list:
    lines = stdout.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("┏"))
    end = next(i for i, l in enumerate(lines) if l.startswith("└"))
    return lines[start:end + 1]


def test_headline_table_fits_100_and_80_columns(cli, bindir):
    p = cli(*RUN, env={"COLUMNS": "100"})
    assert p.returncode == 0, p.stderr
    run_table = _table(p.stdout)
    assert max(map(len, run_table)) <= 100           # (the db path line below is as long as it is)
    assert all(line.endswith(("┓", "┃", "┩", "│", "┘")) for line in run_table)   # nothing cut
    widths = {}
    for columns in (160, 100, 80):
        p = cli("show", "1", "--all", env={"COLUMNS": str(columns)})
        assert p.returncode == 0, p.stderr
        table = _table(p.stdout.split("headline figures", 1)[1])
        widths[columns] = table[1]                                    # the header row
        assert max(map(len, table)) <= columns and table[-1].endswith("┘")
    assert "statistic" in widths[160] and "95% CI of median" in widths[160]
    assert "quality" in widths[80] and "figure" in widths[80] and "statistic" not in widths[80]
