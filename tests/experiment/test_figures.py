"""The experiment drawn against processor count (hpceval/experiment/figures.py), from a real
binding experiment over collectives measured at 1 and 2 ranks."""
from hpceval.experiment.analysis import compare
from hpceval.experiment.figures import experiment_ranks_figure

ONE_ROUND = ["--rounds", "1", "--set", "budget=0.05", "--set", "min-reps=3", "--set", "max-reps=20",
          "--set", "warmup=1"]


def test_variants_against_processor_count(cli, bindir, tmp_path):
    p = cli("experiment", "binding", "collectives", "--variants", "consecutive,default", *ONE_ROUND,
            "--set", "sizes=8", "--set", "ops=allreduce", "--set", "nranks=1,2", "--np", "2",
            "--figures", str(tmp_path / "f"))
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert (tmp_path / "f" / f"run{run['id']}-experiment_ranks_figure.svg").is_file()
    fig = experiment_ranks_figure([run])
    (line,) = [l for l in fig.axes[0].get_lines() if l.get_label().startswith("default")]
    rows = {r.point["nranks"]: r.ratio for r in compare(run)
            if r.variant == "default" and r.metric == "bandwidth"}
    assert list(line.get_xdata()) == [1, 2]
    assert list(line.get_ydata()) == [rows[1], rows[2]]
    # one rank count: nothing to draw against
    one = {**run, "records": [r for r in run["records"] if r["params"].get("nranks") == 2]}
    assert experiment_ranks_figure([one]) is None
