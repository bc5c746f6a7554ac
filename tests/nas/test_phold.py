"""PHOLD: the committed events and the checksum of the final LP states equal rank 0's sequential
run on 1, 2 and 4 ranks (4 oversubscribed), with YAWNS windows and with null messages, also when
every event time ties (no random delay); the records; bad input (exit 2, one line) and a
corrupted checksum (exit 1)."""
import subprocess

import pytest

from helpers import BIN
from hpceval.launch import find_launcher
from hpceval.records import parse_record

ONE_SAMPLE = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
SMALL = ["--lps", "64", "--population", "3", "--end", "12", "--lookahead", "0.25,1",
         "--remote", "0,0.5,1", "--sync", "yawns,null"]
VERIFICATION = ("events_committed", "checksum", "reference_events", "reference_checksum",
                "verified")


def launch(np_, *args, timeout=60):
    """np_ ranks under the launcher hpceval uses (which oversubscribes); 0: the binary alone."""
    cmd = [str(BIN / "hpceval-phold"), *args]
    if np_:
        cmd = find_launcher("auto", 2).command(np_, cmd, "none", {})
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    return p, [parse_record(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]


def results(recs, metric):
    return [r for r in recs if r["type"] == "result" and r["metric"] == metric]


def point(r):
    p = r["params"]
    return p["sync"], p["lookahead"], p["remote"]


def verified_points(np_, *args):
    p, recs = launch(np_, *SMALL, *ONE_SAMPLE, *args)
    assert p.returncode == 0, p.stderr
    rates = results(recs, "event_rate")
    assert len(rates) == 2 * 2 * 3 and all(r["params"]["ranks"] == max(np_, 1) for r in rates)
    for r in rates:
        assert r["verified"] is True and r["check"] == "ok", r
        assert (r["events_committed"], r["checksum"]) == \
            (r["reference_events"], r["reference_checksum"])
    return {point(r): (r["events_committed"], r["checksum"]) for r in rates}, recs


@pytest.fixture(scope="module")
def one_rank():
    return verified_points(0)


@pytest.mark.parametrize("np_", [2, 4])
def test_parallel_runs_equal_the_sequential_run(one_rank, np_):
    got, _ = verified_points(np_)
    assert got == one_rank[0]
    # the two engines simulate the same model: the same answer point by point
    assert {k[1:]: v for k, v in got.items() if k[0] == "yawns"} == \
        {k[1:]: v for k, v in got.items() if k[0] == "null"}


@pytest.mark.parametrize("np_", [0, 4])
def test_tied_event_times_are_ordered_the_same_on_any_rank_count(np_):
    """Without the random part of the delay every event time is a multiple of the lookahead:
    the order of ties alone decides each LP's state."""
    tied = ["--mean", "0", "--lookahead", "1", "--remote", "0.7", "--sync", "yawns,null"]
    p, recs = launch(np_, "--lps", "24", "--population", "5", "--end", "20", *tied, *ONE_SAMPLE)
    assert p.returncode == 0, p.stderr
    rates = results(recs, "event_rate")
    assert len(rates) == 2 and all(r["verified"] for r in rates)
    assert rates[0]["events_committed"] == 24 * 5 * 20   # every LP: 5 events at 0, 1, ..., 19
    assert len({r["checksum"] for r in rates}) == 1


def test_the_seed_and_the_model_choose_the_events(one_rank):
    states, _ = one_rank
    assert len(set(states.values())) == len(states) // 2   # both engines, six different models
    other, _ = launch(0, *SMALL, *ONE_SAMPLE, "--seed", "7", "--sync", "yawns")
    assert other.returncode == 0


def test_records(one_rank):
    _, recs = one_rank
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"
    for metric, unit in (("event_rate", "events/s"), ("messages_per_event", "messages"),
                         ("sync_share", "fraction")):
        rs = results(recs, metric)
        assert len(rs) == 12 and all(r["unit"] == unit for r in rs)
        for r in rs:
            assert all(k in r for k in VERIFICATION)
            assert set(r["params"]) >= {"lps", "population", "end_time", "mean_delay",
                                        "lookahead", "remote", "sync", "seed", "ranks"}
    for r in results(recs, "event_rate"):
        assert r["stats"]["median"] > 0 and len(r["event_rate_per_rank"]) == 1
        assert r["reference_event_rate"] > 0
    for r in results(recs, "messages_per_event"):   # one rank sends nothing
        assert r["stats"]["median"] == 0 and r["remote_events_per_event"] == 0
    for r in results(recs, "sync_share"):
        assert set(r["phases"]) == {"process", "send", "sync"}
        assert 0 <= r["stats"]["median"] <= r["comm_share"] + 1e-9 <= 1


def test_two_ranks_send_the_remote_share(one_rank):
    _, recs = verified_points(2)
    for r in results(recs, "messages_per_event"):
        sync, _, remote = point(r)
        # a remote event goes to the other rank's half of the LPs half the time; the last
        # event of each of the 64 x 3 chains schedules one past the end, which is not sent
        sent = 1 - 64 * 3 / r["events_committed"]
        assert r["remote_events_per_event"] == pytest.approx(remote / 2 * sent, abs=0.04)
        assert r["stats"]["median"] >= r["remote_events_per_event"]
        if sync == "yawns":   # one reduction per rank per window of at most one lookahead
            assert r["sync_messages_per_event"] > 0 and r["windows_per_run"] >= 12 / 1


@pytest.mark.parametrize("args,msg", [
    (["--lps", "0"], "option --lps: 0 is out of range"),
    (["--lookahead", "0"], "option --lookahead: 0 is outside (0, "),
    (["--lookahead", "0.5,-1"], "option --lookahead: -1 is outside (0, "),
    (["--remote", "1.5"], "option --remote: 1.5 is outside [0, 1]"),
    (["--remote", "-0.1"], "option --remote: -0.1 is outside [0, 1]"),
    (["--sync", "optimistic"], "option --sync"),
    (["--end", "0"], "option --end: the end time must be positive"),
    (["--lookahead", "1e-9", "--mean", "0", "--end", "1e6"], "events with lookahead"),
])
def test_bad_input_exits_2_with_one_line(args, msg):
    p, recs = launch(0, *args)
    assert p.returncode == 2
    [line] = [l for l in p.stderr.splitlines() if l.strip()]
    assert line.startswith("hpceval-phold: error: ") and msg in line, line
    assert recs[-1]["type"] == "error"


def test_fewer_lps_than_ranks_exits_2():
    p, recs = launch(2, "--lps", "1")
    assert p.returncode == 2
    lines = [l for l in p.stderr.splitlines() if l.startswith("hpceval-phold:")]
    assert lines == ["hpceval-phold: error: phold: 1 LPs for 2 ranks: every rank needs one"]


@pytest.mark.parametrize("np_", [0, 2])
def test_a_corrupted_checksum_fails_the_check(np_):
    p, recs = launch(np_, "--end", "4", "--inject", "corrupt", *ONE_SAMPLE)
    assert p.returncode == 1
    err = [r for r in recs if r["type"] == "error"]
    assert err and "checksum" in err[0]["message"] and "the sequential run" in err[0]["message"]


def test_through_the_cli_measured_carded_and_drawn(cli, tmp_path):
    from helpers import FAST, one_line_error
    from hpceval.analysis.card import machine_card
    from hpceval.analysis.headlines import headlines

    small = ["--set", "phold.lps=128", "--set", "phold.end=8", "--set", "phold.lookahead=0.5",
             "--set", "phold.remote=0.2,0.8"]
    p = cli("run", "phold", "--set", "phold.ranks=1,2", *FAST, *small, timeout=300)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["status"] == "ok" and {l["nranks"] for l in run["launches"]} == {1, 2}
    rates = [r for r in run["records"] if r["metric"] == "event_rate"]
    assert len(rates) == 2 * 2 * 2 and all(r["extra"]["verified"] for r in rates)
    card = {r["quantity"]: r for r in machine_card(run)}
    assert card["PHOLD discrete-event simulation, committed events/s"]["measured"]
    assert any("phold" in str(h["record"]["benchmark"]) for h in headlines(run["records"]))
    out = tmp_path / "r.html"
    assert cli("report", "latest", "-o", str(out)).returncode == 0
    assert "PHOLD discrete-event simulation" in out.read_text()
    bad = cli("run", "phold", "--np", "2", "--set", "phold.lps=1", *FAST)
    assert bad.returncode == 2 and "1 LPs for 2 ranks" in one_line_error(bad.stderr)
