"""The application models' arithmetic on hand-computed parameters (hpceval/analysis/predict):
a machine whose message takes 1 us + 1 ns per byte, one-rank compute rates made up, every part
worked out by hand in the comments."""
import math

import pytest

from hpceval.analysis.predict import Machine, model, predict
from hpceval.analysis.predict.model import read_options
from hpceval.analysis.predict import sweep
from hpceval.analysis.predict.psst import grid_size


def rec(bench, metric, v, extra=None, **params):
    return {"benchmark": bench, "metric": metric, "unit": "us", "statistic": "median",
            "better": "lower", "converged": True, "params": params, "extra": extra or {},
            "stats": {"n": 10, "min": v, "median": v, "mean": v, "max": v, "stddev": 0,
                      "ci_low": v, "ci_high": v}}


def phases(**us):
    return {"phases": {k: {"kind": "compute", "per_rank": [v]} for k, v in us.items()}}


def machine(*records, loggp=None):
    run = {"id": 1, "records": list(records), "fingerprint": {"hash": "h", "hostname": "x"}}
    return Machine([run], lambda n: 1.0 + 0.001 * n, {}, "x", loggp)


BARO = rec("barotropic", "iteration_time", 70.0, {"ocean_points": 6144, **phases(compute=61.44)},
           nx=96, ny=64, P=1, Q=1, land="none", sum="allreduce", halo="pack", scaling="strong")


def test_barotropic_by_hand():
    m = machine(BARO, rec("barotropic", "iteration_time", 40.0, nx=96, ny=64, P=2, Q=1,
                          land="none", sum="allreduce", halo="pack", scaling="strong"))
    am = model("barotropic")
    one, two = predict(am, read_options(am, {"grid": "96x64"}), [1, 2], m)
    assert one.parts == {"compute": pytest.approx(61.44), "halo": 0.0, "global sums": 0.0}
    # 2x1: 48x64 points at 0.01 us = 30.72; two 64-double E/W messages 2 x 1.512 = 3.024;
    # 2.1 sums of a modelled allreduce, log2(2) x message(8) = 1.008: 2.1168 (1x2 costs more:
    # a 96-double message and two corners, 3.784)
    assert two.parts == pytest.approx({"compute": 30.72, "halo": 3.024, "global sums": 2.1168})
    assert m.layouts[("barotropic", 2)] == "2x1"
    assert two.measured == 40.0 and two.error == pytest.approx(35.8608 / 40 - 1)
    assert one.measured == 70.0 and m.sources["allreduce at 2 ranks"].startswith("modelled")


def test_measured_collectives_and_loggp_exchange():
    m = machine(*(rec("collectives", "latency", t, op="allreduce", bytes=b, nranks=2)
                  for b, t in ((8, 0.4), (4096, 2.6))),
                loggp={"o_s_us": 0.1, "o_r_us": 0.2, "L_us": 0.5, "G_us_per_byte": 0.001})
    assert m.collective("allreduce", 2, 8) == pytest.approx(0.4)
    # log-log between the two points: 0.4 * (64 / 8) ** (log(6.5) / log(512))
    assert m.collective("allreduce", 2, 64) == pytest.approx(
        0.4 * 8 ** (math.log(2.6 / 0.4) / math.log(512)))
    assert m.collective("allreduce", 4, 8) == pytest.approx(2 * 1.008)     # not measured at 4
    assert m.collective("allreduce", 1, 8) == 0.0
    # two 512-byte messages at once: 2 (o_s + o_r) + L + G x 1024
    assert m.exchange([512, 512]) == pytest.approx(0.6 + 0.5 + 1.024)
    # the same in an eager pipeline's stage: the latency paid once, in the fill
    assert m.posted([512, 512]) == pytest.approx(0.6 + 1.024)


def test_ranks_apart_from_the_distance_map():
    """A fat tree with leaves of 4: rank 0 to 1-3 in 1.5 us, beyond the leaf 3.0 us; the map
    sampled 1, 2, 4 and 8 (an unmeasured rank takes the nearest measured one below it)."""
    from hpceval.analysis.predict.machine import _distance_map
    dist = [rec("distance", "latency", t, src=0, dst=d, bytes=8)
            for d, t in ((1, 1.5), (2, 1.5), (4, 3.0), (8, 3.0))]
    m = machine(*dist, loggp={"o_s_us": 0.0, "o_r_us": 0.0, "L_us": 1.5, "G_us_per_byte": 0.0})
    m.distance, where = _distance_map(m.runs)
    assert m.distance == {1: 1.5, 2: 1.5, 4: 3.0, 8: 3.0}
    assert where == "distance map (8 B, rank 0 to 4 ranks) of run 1"
    assert m.apart(4, 1, 2, 3) == 0.0                     # one leaf
    assert m.apart(16, 1) == pytest.approx(1.5)           # ranks 3 and 4 straddle its end
    assert m.apart(16, 1, 2, aligned=True) == 0.0         # r XOR 1, r XOR 2 stay in the leaf
    assert m.apart(32, 16) == pytest.approx(1.5) and m.apart(16) == 0.0
    # a halo to ranks 1 and 4 apart: one latency, the farther's
    assert m.exchange([8, 8], m.apart(16, 1, 4)) == pytest.approx(3.0)
    # recursive doubling over 8 ranks: steps 1, 2, 4 apart (the last beyond the leaf); a
    # modelled alltoall on 4 ranks: the three messages at once, in the leaf; on 8 across it
    assert m.collective("allreduce", 8, 8) == pytest.approx(3 * 1.008 + 1.5)
    assert m.collective("alltoall", 4, 8) == pytest.approx(1.5)
    assert m.collective("alltoall", 8, 8) == pytest.approx(3.0)
    assert m.collective("allreduce", 2, 8, stride=4) == pytest.approx(1.008 + 1.5)
    # MPICH's scattered alltoall(v) in rounds of 4 (SimGrid's selector): ranks 1-3 ahead in
    # the leaf, then 4-7 beyond it
    m.throttle = 4
    assert m.collective("alltoallv", 8, 8) == pytest.approx(1.5 + 3.0)
    # measured on consecutive ranks; at a stride of 4 every step leaves the leaf: + 1.5
    m.runs[0]["records"] += [rec("collectives", "latency", 0.4, op="allreduce", bytes=8,
                                 nranks=2)]
    assert m.collective("allreduce", 2, 8, stride=4) == pytest.approx(0.4 + 1.5)
    assert machine().apart(16, 4) == 0.0                  # no map: nothing added


def test_psst_by_hand():
    assert grid_size(21) == (64, 32) and grid_size(42) == (128, 64) and grid_size(85) == (256, 128)
    one = rec("psst", "run_time", 0.01, {"passes": 10, **phases(
        legendre=100.0, fft=50.0, grid=10.0, pack=4.0, spectral=6.0)}, truncation=21, levels=1,
        P=1, Q=1, transpose="alltoallv", sum="allreduce", test=2)
    m = machine(one)
    am = model("psst")
    (two,) = predict(am, read_options(am, {"truncation": 21, "levels": 1}), [2], m)
    # 1x2: the transform work halves (50 + 25 + 7), spectral 6 / Q = 3; transposes over 2 ranks:
    # 2 nh / P x L / Q = 16 units x 22 / 2 wavenumbers x 8 B = 1408 B per double, 8 and 10
    # doubles: message(11264) + message(14080) = 12.264 + 15.08; no sum (P = 1). 2x1 would sum
    # 14 x 253 coefficients x 8 B = 28336 B over 2 ranks: 29.336, more.
    assert two.parts == pytest.approx({"Legendre": 50.0, "FFT": 25.0, "grid and copies": 7.0,
                                       "spectral": 3.0, "transposes": 27.344, "global sum": 0.0})
    assert predict(am, read_options(am, {"truncation": 21, "levels": 1}), [1], m)[0].measured == pytest.approx(1000.0)


def test_sweep_by_hand():
    m = machine(rec("sweep", "grind_time", 2.0, nx=8, ny=8, nz=8, P=1, Q=1, sn=4, mk=4, mmi=3,
                    scaling="strong"))
    am = model("sweep")
    (two,) = predict(am, read_options(am, {"grid": "8x8x8", "sn": 4, "mk": 4, "mmi": 3}), [2], m)
    # 3 angles per octant, 2 k-blocks: 2 stages; a stage on 4x8 cells x 4 planes x 3 angles at
    # 2 ns = 0.768 us, its 768-byte face 0.768 us beyond a 0-byte message; a hop 0.768 + 1.768;
    # 2x1: 3 east fills of 1 hop (1x2 would take 4 north fills)
    assert two.parts == pytest.approx({"compute": 8 * 2 * 0.768, "messages": 8 * 2 * 0.768,
                                       "pipeline fill": 3 * (0.768 + 1.768),
                                       "convergence sum": 1.008})
    assert m.layouts[("sweep", 2)] == "2x1"


def test_sweep_order_is_the_codes():
    from pathlib import Path
    import re
    src = (Path(__file__).resolve().parents[2] / "csrc/kernels/lib/sweep_solver.c").read_text()
    table = re.search(r"OCTANTS\[8\]\[3\] = \{(.*?)\};", src, re.S).group(1)
    octants = [tuple(map(int, t)) for t in re.findall(r"\{(-?1), (-?1), (-?1)\}", table)]
    assert tuple(o[:2] for o in octants) == sweep.ORDER
    assert sweep.fills() == (3, 4)
    assert sweep.fills([(1, 1)] * 8) == (1, 1)


def blocks_end(order, P, Q, n, c, east, north):
    """When the last block of an octant order ends on P x Q ranks, block by block: a rank's
    block starts when its previous block (of this or the previous octant) has ended and its
    upstream neighbours' same block has arrived (c of compute, then east or north us)."""
    end = {}
    for o, (di, dj) in enumerate(order):
        ii = range(P) if di > 0 else range(P - 1, -1, -1)
        jj = range(Q) if dj > 0 else range(Q - 1, -1, -1)
        for b in range(n):
            for j in jj:
                for i in ii:
                    prev = end.get((o, i, j, b - 1), end.get((o - 1, i, j, n - 1), 0.0))
                    up = [end[(o, i - di, j, b)] + east] if 0 <= i - di < P else []
                    up += [end[(o, i, j - dj, b)] + north] if 0 <= j - dj < Q else []
                    end[(o, i, j, b)] = max([prev] + up) + c
    return max(end.values())


@pytest.mark.parametrize("P,Q,n,c,east,north", [(4, 4, 4, 0.1, 1.5, 1.5), (16, 2, 3, 0.5, 1.5, 3.0),
                                               (3, 5, 6, 2.0, 0.25, 1.0), (1, 4, 2, 1.0, 0, 2.0)])
def test_sweep_critical_path(P, Q, n, c, east, north):
    # the model's 8 n t + fe (P - 1) e + fn (Q - 1) u against the blocks' own schedule
    fe, fn = sweep.fills()
    assert blocks_end(sweep.ORDER, P, Q, n, c, east, north) == pytest.approx(
        8 * n * c + fe * (P - 1) * (c + east) + fn * (Q - 1) * (c + north))
    # every octant filling its own pipeline would be 8 fills each way
    assert blocks_end([(1, 1), (-1, -1)] * 4, P, Q, n, c, east, north) == pytest.approx(
        8 * n * c + 8 * (P - 1) * (c + east) + 8 * (Q - 1) * (c + north))


def test_evh1_by_hand():
    m = machine(rec("evh1", "step_time", 2048.0, nx=8, ny=8, nz=8, P=1, Q=1, problem="blast",
                    axis="", transpose="alltoallv", scaling="strong"))
    am = model("evh1")
    one, two = predict(am, read_options(am, {"grid": "8x8x8", "transpose": "pairwise"}), [1, 2], m)
    assert one.parts == {"sweeps": pytest.approx(2048.0), "transposes": 0.0, "time step": 0.0}
    # 4 us a zone; 2x1 or 1x2: the largest box 256 zones (1024 us); one transpose over 2 ranks
    # of one 40 B x 256 / 2 = 5120 B block, message(5120) = 6.12 us; a modelled allreduce 1.008
    assert two.parts == pytest.approx({"sweeps": 1024.0, "transposes": 6.12, "time step": 1.008})
    assert one.measured is None        # the record's transpose is alltoallv, not pairwise
    with pytest.raises(Exception, match="more than the problem can be split into|cannot be split"):
        predict(am, read_options(am, {"grid": "2x2x2"}), [16], m)


def test_montecarlo_by_hand():
    m = machine(rec("montecarlo", "history_time", 500.0, cycles=10, particles=1000, chunk=100,
                    geometry="slab", workers=0))
    am = model("montecarlo")
    one, three = predict(am, read_options(am, {"particles": 1000}), [1, 3], m)
    assert one.total == pytest.approx(500.0)                 # 1000 histories x 0.5 us
    # 2 workers: 250 us of tracking hide the master's 10 x 2 x 1.016 us; tallies 2 x 1.256
    # and a modelled bcast, 2 x 1.008
    assert three.parts == pytest.approx({"tracking": 250.0, "handouts": 0.0,
                                         "tallies": 2.512 + 2.016})


def test_missing_parameters_are_one_line_errors():
    from hpceval.errors import UsageError
    from hpceval.analysis.predict import machine_params
    am = model("barotropic")
    # the hint is a command that makes the record the model needs (no land, the same grid)
    with pytest.raises(UsageError, match="no one-rank barotropic record.*barotropic.ranks=1 "
                                         "--set barotropic.land=none --set barotropic.grids=96x64"):
        predict(am, read_options(am, {}), [2], machine())
    with pytest.raises(UsageError, match="ping-pong"):
        machine_params([{"id": 1, "records": [], "fingerprint": {"hash": "h"}}])
    with pytest.raises(UsageError, match="no model of 'pop'"):
        model("pop")
    with pytest.raises(UsageError, match="expected NXxNY"):
        read_options(am, {"grid": "96"})
    with pytest.raises(UsageError, match="check_every: 0 is out of range"):
        read_options(am, {"check_every": "0"})
    with pytest.raises(UsageError, match="barotropic's options are"):
        read_options(am, {"bogus": "1"})
    with pytest.raises(UsageError, match="truncation"):
        read_options(model("psst"), {"truncation": "abc"})
