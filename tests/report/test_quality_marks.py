"""Points that are not measurements are not drawn as data: a collective at the 1 ns floor left
out of its line (its raw time beside it in the tables), unconverged and disturbed points marked."""
from hpceval.report import FIGURES, make_figure, render_report


def rec(metric, v, op, nranks, size, unit="us", better="lower", converged=True, extra=None):
    r = {"benchmark": "collectives", "metric": metric, "unit": unit, "better": better,
         "statistic": "median", "converged": converged,
         "params": {"op": op, "nranks": nranks, "bytes": size},
         "stats": {"n": 20, "min": v, "median": v, "mean": v, "max": v * 1.1, "stddev": 0,
                   "ci_low": v * 0.95, "ci_high": v * 1.05}}
    if extra:
        r["extra"] = extra
    return r


def run():
    recs = []
    for n in (2, 4):
        recs.append(rec("latency", 3.0, "barrier", n, 0))
        for size, t in ((4, 0.001), (64, 0.9), (1024, 2.0), (65536, 40.0)):
            t = t if n == 4 else max(t, 0.5)
            recs.append(rec("latency", t, "bcast", n, size, converged=size != 1024,
                            extra={"disturbed": "the hypervisor stole 30%"} if size == 65536 else None))
            recs.append(rec("latency_raw", t + 3.0, "bcast", n, size))
            recs.append(rec("bandwidth", size / t, "bcast", n, size, "MB/s", "higher"))
    return {"id": 1, "status": "ok", "fingerprint": {"cores": 4, "hostname": "h"},
            "launches": [], "records": recs}


def test_floor_points_are_not_drawn_and_quality_is_marked():
    spec = next(s for s in FIGURES if s.make.__name__ == "collectives_size")
    fig = make_figure(spec, [run()])
    ax4 = fig.axes[1]
    drawn = [y for line in ax4.get_lines() if line.get_label() == "bcast" for y in line.get_ydata()]
    assert 0.001 not in drawn and 0.9 in drawn
    labels = {l for ax in fig.axes for l in ax.get_legend_handles_labels()[1]}
    assert {"at the subtraction floor (not drawn)", "not converged", "disturbed"} <= labels


def test_floor_points_show_their_raw_time_in_the_tables():
    html = render_report([run()])
    assert "at the floor; raw 3.001 us" in html
    assert "at floor" in html and "floor" in html.split('id="run-1-warnings"')[1][:2000]
