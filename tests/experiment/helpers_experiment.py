"""Tiny settings (tests/launch/test_mpich_every_binary.py TINY) and what every experiment test
checks of its run."""
from helpers import one_line_error

# Each launch takes well under a second; four rounds so that the Mann-Whitney test can reach
# p < 0.05 at all.
QUICK = ["--rounds", "4", "--set", "budget=0.05", "--set", "min-reps=3", "--set", "max-reps=20",
         "--set", "warmup=1"]
SST = ["--set", "truncations=5", "--set", "levels=1", "--set", "copies=1", "--set", "alpha=0",
       "--set", "days=0.2"]


def tags(run):
    return [r["extra"]["experiment"] for r in run["records"]]


def assert_interleaved(run, variants, rounds):
    """Launches in the order A B C, A B C ...; every record tagged with its variant and round."""
    order = [(t["round"], t["variant"]) for t in tags(run)]
    assert order == sorted(order, key=lambda rv: (rv[0], variants.index(rv[1])))
    assert {t["variant"] for t in tags(run)} == set(variants)
    assert {t["round"] for t in tags(run)} == set(range(1, rounds + 1))
    assert run["settings"]["experiment"]["variants"] == variants


def assert_refused(cli, *args, says):
    """Exit 2, one line, and nothing stored."""
    p = cli("experiment", *args)
    assert p.returncode == 2, p.stdout + p.stderr
    assert says in one_line_error(p.stderr), p.stderr
    assert not cli.db.exists() or cli("runs").stdout.count("experiment") == 0
