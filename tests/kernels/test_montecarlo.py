"""The MCNP-like master-worker transport proxy: the same tallies, bit for bit, from 1 to 4 ranks
and any chunk size; the exact answers without scattering (slab and spheres); a scattering slab
against a stored high-statistics reference and an independent discrete-ordinates solution;
particle balance; the records; bad input (exit 2, one line) and corrupted tallies (exit 1)."""
import math

import numpy as np
import pytest
from scipy.signal import lfilter
from scipy.special import expn

from kernel_helpers import assert_phases_within_loop, mpirun

ONE_SAMPLE = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
LAYERS = ["--thickness", "1,2", "--sigma-t", "1,0.5", "--scatter", "0.3,0.9"]
TALLY_KEYS = ("tally_digest", "source_particles", "transmitted", "reflected", "absorbed",
              "collisions", "transmission", "transmission_se", "reflection", "track_cm",
              "track_se_cm")
PHASES = {"track": "compute", "handout": "comm", "collect": "comm", "combine": "compute",
          "rendezvous": "comm"}

# Slab 2 cm, sigma_t 1/cm, c = 0.5, normal incidence: this code, computed once with
# --seed 987654321 --cycles 80 --particles 1000000 (8e7 histories; docs/apps_montecarlo.md).
REFERENCE = {"transmission": (0.1892457875, 4.3793809684047049e-05),
             "reflection": (0.11289005, 3.5381119234490925e-05),
             "track": (1.3953860540160179, 0.00012727920994231841)}
SCATTERING = ["--thickness", "2", "--sigma-t", "1", "--scatter", "0.5"]


def launch(np_, *args, timeout=60):
    return mpirun("montecarlo", np_, *args, timeout=timeout)


def record(recs, metric="history_time"):
    [r] = [r for r in recs if r["type"] == "result" and r["metric"] == metric]
    return r


def tallies(np_, *args):
    p, recs = launch(np_, *args, *ONE_SAMPLE)
    assert p.returncode == 0, p.stderr
    return record(recs), record(recs, "cycle_time")


@pytest.mark.parametrize("np_,chunk,sleep", [(2, 7, 0), (3, 50, 0), (3, 50, 20), (4, 3, 0),
                                            (4, 1000, 0)])
def test_tallies_do_not_depend_on_workers_or_chunks(np_, chunk, sleep):
    run = ["--particles", "3001", "--cycles", "3", *LAYERS]
    ref, _ = tallies(0, *run, "--chunk", "1")
    got, cyc = tallies(np_, *run, "--chunk", str(chunk), "--master-sleep", str(sleep))
    assert {k: got[k] for k in TALLY_KEYS} == {k: ref[k] for k in TALLY_KEYS}
    assert ref["reflected"] > 0 and min(ref["absorbed"]) > 0  # every kind of ending occurs
    # the workers track everything, the master nothing (histories per cycle)
    per_rank = cyc["histories_per_rank"]
    assert len(per_rank) == np_ and per_rank[0] == 0 and sum(per_rank) == pytest.approx(3001, rel=1e-5)
    assert got["params"]["workers"] == np_ - 1 and got["trackers"] == np_ - 1
    assert got["master_tracks"] is False and ref["master_tracks"] is True


def test_the_seed_chooses_the_histories():
    a, _ = tallies(0, "--particles", "2000", *LAYERS)
    b, _ = tallies(0, "--particles", "2000", *LAYERS, "--seed", "7")
    assert a["tally_digest"] != b["tally_digest"]


@pytest.mark.parametrize("np_,geometry", [(0, ["--thickness", "0.5,1.5", "--sigma-t", "2,0.4"]),
                                         (2, ["--thickness", "3", "--sigma-t", "0.7"]),
                                         (2, ["--geometry", "spheres", "--radii", "0.5,3",
                                              "--sigma-t", "1,0.3"])])
def test_without_scattering_the_answer_is_exact(np_, geometry):
    r, _ = tallies(np_, *geometry, "--scatter", "0", "--particles", "20000", "--cycles", "5")
    assert r["verified_against"] == "analytic"
    b, sig = r["bounds_cm"], r["sigma_t"]
    tau = sum(s * (b[k + 1] - b[k]) for k, s in enumerate(sig))
    exact = math.exp(-tau)
    assert r["exact_transmission"] == pytest.approx(exact, rel=1e-14)
    se = math.sqrt(exact * (1 - exact) / 100000)
    assert abs(r["transmission"] - exact) <= 4 * se
    assert r["reflected"] == 0 and r["collisions"] == sum(r["absorbed"])
    for got, ex, se in zip(r["track_cm"], r["exact_track_cm"], r["track_se_cm"]):
        assert abs(got - ex) <= 4 * se + 2 ** -20


def test_isotropic_source_without_scattering():
    # direction cosines uniform on (0, 1]: T = integral of exp(-tau / mu) d mu = E_2(tau)
    r, _ = tallies(2, "--source", "isotropic", "--thickness", "0.5,1", "--sigma-t", "1,0.4",
                   "--scatter", "0", "--particles", "20000", "--cycles", "5", "--chunk", "2000")
    exact = expn(2, 0.5 + 0.4)
    assert r["verified_against"] == "balance" and "exact_transmission" not in r
    assert abs(r["transmission"] - exact) <= 4 * math.sqrt(exact * (1 - exact) / 100000)
    # region 1 absorbs what region 0 lets through: E_2(0.5) - E_2(0.9)
    p1 = expn(2, 0.5) - exact
    assert abs(r["absorbed"][1] / 100000 - p1) <= 4 * math.sqrt(p1 * (1 - p1) / 100000)


@pytest.mark.parametrize("whole,split", [
    (["--thickness", "2"], ["--thickness", "0.7,0.6,0.7"]),
    (["--geometry", "spheres", "--radii", "2"], ["--geometry", "spheres", "--radii", "0.5,1.2,2"]),
])
def test_splitting_a_region_changes_nothing_but_the_draws(whole, split):
    # the same material on both sides of a surface: every crossing (inward ones too, on chords
    # off the centre after a scattering) must leave the answer alone, within statistics
    run = ["--sigma-t", "1.5", "--scatter", "0.7", "--particles", "50000", "--cycles", "2",
           "--chunk", "5000"]
    a, _ = tallies(0, *whole, *run)
    b, _ = tallies(0, *split, *run)
    assert b["regions"] == 3 and a["tally_digest"] != b["tally_digest"]
    for key in ("transmission", "reflection"):
        assert abs(a[key] - b[key]) <= 4 * math.hypot(a[key + "_se"], b[key + "_se"]), key
    se = math.hypot(a["track_se_cm"][0], sum(b["track_se_cm"]))  # bounds the correlated sum
    assert abs(a["track_cm"][0] - sum(b["track_cm"])) <= 4 * se


def discrete_ordinates(n_ang=128, cells=1000, thickness=2.0, sigma=1.0, c=0.5):
    """Transmission, reflection and track per source particle of a normally incident beam on a
    homogeneous slab with isotropic scattering: S_N (Gauss-Legendre), step characteristics,
    the uncollided beam exact. Independent of the code under test."""
    mu, w = np.polynomial.legendre.leggauss(n_ang)
    dx = thickness / cells
    x = np.linspace(0, thickness, cells + 1)
    phi_u = (np.exp(-sigma * x[:-1]) - np.exp(-sigma * x[1:])) / (sigma * dx)
    phi_c, out = np.zeros(cells), np.zeros(n_ang)
    for _ in range(200):
        q = c * sigma / 2 * (phi_u + phi_c)
        new = np.zeros(cells)
        for k in range(n_ang):
            m = abs(mu[k])
            a = math.exp(-sigma * dx / m)
            b = (1 - a) * q / sigma if mu[k] > 0 else ((1 - a) * q / sigma)[::-1]
            edge = lfilter([1.0], [1.0, -a], b)  # outgoing edge flux of each cell
            avg = b / (1 - a) + (np.concatenate(([0.0], edge[:-1])) - edge) * m / (sigma * dx)
            new += w[k] * (avg if mu[k] > 0 else avg[::-1])
            out[k] = edge[-1]
        done = np.max(np.abs(new - phi_c)) < 1e-14
        phi_c = new
        if done:
            break
    return (math.exp(-sigma * thickness) + np.sum((w * mu * out)[mu > 0]),
            np.sum((w * -mu * out)[mu < 0]), np.sum(phi_u + phi_c) * dx)


def test_scattering_slab_matches_the_reference_and_discrete_ordinates():
    r, _ = tallies(2, *SCATTERING, "--particles", "50000", "--cycles", "4", "--chunk", "500")
    sn = dict(zip(("transmission", "reflection", "track"), discrete_ordinates()))
    got = {"transmission": (r["transmission"], r["transmission_se"]),
           "reflection": (r["reflection"], r["reflection_se"]),
           "track": (r["track_cm"][0], r["track_se_cm"][0])}
    for key, (ref, ref_se) in REFERENCE.items():
        est, se = got[key]
        assert abs(est - ref) <= 4 * math.hypot(se, ref_se), key
        # S_N at 128 angles is within 3e-5 of its converged value (docs/apps_montecarlo.md)
        assert abs(ref - sn[key]) <= 4 * ref_se + 3e-5, key
        assert abs(est - sn[key]) <= 4 * se + 3e-5, key
    assert r["verified_against"] == "balance"


def test_expected_transmission_is_checked():
    ref, ref_se = REFERENCE["transmission"]
    run = [*SCATTERING, "--particles", "50000", *ONE_SAMPLE]
    p, recs = launch(0, *run, "--expect-transmission", str(ref), "--expect-se", str(ref_se))
    assert p.returncode == 0, p.stderr
    r = record(recs)
    assert r["verified_against"] == "reference" and abs(r["expect_z"]) <= 4
    p, recs = launch(0, *run, "--expect-transmission", str(ref + 0.02))
    assert p.returncode == 1
    [err] = [r for r in recs if r["type"] == "error"]
    assert "the transmission (--expect-transmission)" in err["message"]


@pytest.mark.parametrize("np_,args", [
    (0, ["--geometry", "spheres", "--radii", "0.5,1,2.5", "--sigma-t", "2,0,1",
         "--scatter", "0.8,1,0.6"]),
    (2, ["--source", "isotropic", *LAYERS]),
])
def test_every_particle_ends_once(np_, args):
    r, _ = tallies(np_, *args, "--particles", "5000", "--cycles", "2", "--chunk", "64")
    assert r["transmitted"] + r["reflected"] + sum(r["absorbed"]) == r["source_particles"] == 10000
    assert r["collisions"] > sum(r["absorbed"]) and r["verified_against"] == "balance"
    if r["params"]["geometry"] == "spheres":
        assert r["reflected"] == 0 and r["params"]["source"] == "point"
        assert r["absorbed"][1] == 0  # a void region (and c = 1) absorbs nothing
    else:
        assert r["reflected"] > 0 and r["params"]["source"] == "isotropic"


def test_records_carry_what_the_scaling_needs():
    p, recs = launch(2, "--particles", "4000", "--cycles", "3", "--chunk", "250", "--min-reps",
                     "3", "--max-reps", "3", "--warmup", "1")
    assert p.returncode == 0, p.stderr
    grind, cyc, busy = (record(recs, m) for m in ("history_time", "cycle_time", "master_busy"))
    params = {"geometry": "slab", "source": "normal", "cycles": 3, "particles": 4000,
              "chunk": 250, "workers": 1, "master_sleep_us": 0}
    assert grind["params"] == cyc["params"] == busy["params"] == params
    assert [(r["unit"], r["statistic"], r["better"]) for r in (grind, cyc, busy)] == [
        ("ns", "median", "lower"), ("us", "median", "lower"), ("fraction", "median", "lower")]
    assert all(r["stats"]["n"] == 3 and r["histories"] == 12000 for r in (grind, cyc, busy))
    # the same samples: a run's wall time over its histories, and over its cycles
    assert grind["stats"]["median"] * 12000 / 1e3 == pytest.approx(
        cyc["stats"]["median"] * 3, rel=1e-4)
    assert 0 < busy["stats"]["min"] <= busy["stats"]["max"] <= 1
    assert grind["chunks_per_cycle"] == 16 and grind["grind_basis"].startswith("wall time")
    assert {k: v["kind"] for k, v in cyc["phases"].items()} == PHASES
    assert_phases_within_loop(cyc, PHASES)
    assert cyc["phases"]["track"]["per_rank"][0] == 0 < cyc["phases"]["track"]["per_rank"][1]
    assert cyc["histories_per_rank"] == [0, 4000]


@pytest.mark.parametrize("np_,args,msg", [
    (0, ["--particles", "0"], "option --particles"),
    (0, ["--cycles", "0"], "option --cycles"),
    (0, ["--particles", "1", "--cycles", "1"], "one history in all"),
    (3, ["--particles", "10", "--chunk", "10"], "fewer than the 2 workers: a worker gets no work"),
    (0, ["--sigma-t", "-1"], "option --sigma-t: -1 is outside [0, 1e+30]"),
    (0, ["--scatter", "1.5"], "option --scatter: 1.5 is outside [0, 1]"),
    (0, ["--scatter", "-0.1"], "option --scatter: -0.1 is outside [0, 1]"),
    (0, ["--geometry", "cube"], "option --geometry"),
    (0, ["--geometry", "spheres", "--source", "isotropic"], "spheres have a point source"),
    (0, ["--thickness", "1,0"], "option --thickness: thickness 0 is not positive"),
    (0, ["--geometry", "spheres", "--radii", "2,1"], "option --radii: radius 1 is not above"),
    (0, ["--thickness", "1,2,3", "--sigma-t", "1,2"], "option --sigma-t: 2 values for 3 regions"),
    (0, ["--scatter", "0.5,,0.5"], "option --scatter: '0.5,,0.5' is not a comma list"),
])
def test_bad_input(np_, args, msg):
    p, recs = launch(np_, *args, *ONE_SAMPLE)
    assert p.returncode == 2, p.stderr
    # one line from the binary; mpirun may add its own banner after it
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    ours = [l for l in lines if l.startswith("hpceval-montecarlo")]
    assert ours == lines[:1] and msg in lines[0], p.stderr
    assert len(lines) == 1 or np_ > 0
    assert not [r for r in recs if r["type"] == "result"]


@pytest.mark.parametrize("np_", [0, 2])
def test_corrupted_tallies_fail(np_):
    p, recs = launch(np_, "--particles", "2000", "--inject", "corrupt", *ONE_SAMPLE)
    assert p.returncode == 1
    [err] = [r for r in recs if r["type"] == "error"]
    assert "particle balance" in err["message"]
    assert not [r for r in recs if r["type"] == "result"]
