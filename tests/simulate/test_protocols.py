"""The eager limit and the protocol switch on a platform whose answer the test plants
(`--simulate ...,eager=N,handshake=2`, docs/simulate.md): messages below N bytes leave when
sent, from N up the transfer waits for the receive and pays two more latencies (a rendezvous'
request and reply). The eager benchmark must bracket the limit at exactly N - 16 | N, the
ping-pong's refinement the same step, and the piecewise Hockney fit must put its breakpoint
there with each region's planted t0 and r_inf.

Tolerances: simulated time has no noise (the same launch gives the same figures on an idle or a
loaded host), so the brackets are exact and the fitted figures within 1% (the simulated clock
reads, 10 ns each, and SMPI's few bytes of envelope are the rest). The real machines' figures
(how often a sweep is right there) are benchmarks/eager_limits.py's (docs/eager.md)."""
import pytest

from hpceval.analysis.card import machine_card
from hpceval.analysis.commmodel import run_models, switches
from hpceval.analysis.eager import eager_limit, eager_switches

SMALL = ["--set", "budget=0.001", "--no-remeasure"]
# (limit, placement, description's nodes): inside a node the loopback link (0.3 us, 20 GB/s),
# across two nodes the network (1.5 us, 25 GB/s)
PLANTED = [(4096, "intra-node", "nodes=1,ppn=2", 0.3, 20e3),
           (16384, "inter-node", "nodes=2,ppn=1,latency=1.5us,bandwidth=25GBps", 1.5, 25e3)]


def _run(sim, desc: str, limit: int) -> dict:
    """One run of the eager sweep and a refined ping-pong on the planted platform."""
    p = sim("run", "eager", "pingpong", "--simulate", f"{desc},eager={limit},handshake=2",
            "--set", "pingpong.sizes=512,1K,2K,4K,8K,16K,32K,64K", *SMALL, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    run, = sim.export("latest")
    return run


@pytest.mark.parametrize("limit,where,desc,lat_us,bw_mbps", PLANTED)
def test_planted_eager_limit_is_found(sim, limit, where, desc, lat_us, bw_mbps):
    run = _run(sim, desc, limit)
    found = eager_limit(run, where)
    assert found is not None, eager_switches(run)
    step, rec = found
    # the largest eager message is the last size below the limit the 16-byte bisection reached
    assert (step.n_before, step.n_after, rec["params"]["bytes"]) == (limit - 16, limit, limit)
    [row] = [r for r in machine_card(run) if r["section"] == f"MPI {where}"
             and r["quantity"].startswith("Eager limit")]
    assert row["measured"] and row["value"] == limit - 16, row
    # the ping-pong's refinement brackets the handshake's step at the same sizes
    assert [(s.n_before, s.n_after) for s in switches(run)] == [(limit - 16, limit)]
    # the fit: two regions, split there, each with the planted latency (x3 for the
    # rendezvous: request, reply, data) and the link's bandwidth
    model = run_models(run)["pingpong"]
    assert model.breakpoints == [(limit - 16, limit)], model
    eager, rndv = model.regions
    assert eager.t0 == pytest.approx(lat_us, rel=0.01), model
    assert rndv.t0 == pytest.approx(3 * lat_us, rel=0.01), model
    for region in model.regions:
        assert region.r_inf == pytest.approx(bw_mbps, rel=0.01), model
        assert region.n_half == pytest.approx(region.t0 * bw_mbps, rel=0.02), model
