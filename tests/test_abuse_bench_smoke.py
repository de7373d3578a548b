"""CI's short run of the abuse benchmark: it runs, prints INTERFACES.md's keys, no errors."""

from tests.bench_helpers import run_bench


def test_bench_abuse_smoke():
    figures = run_bench("bench_abuse.py", "--smoke")
    assert figures["errors"] == 0, figures["error_kinds"]
    keys = ("flood_p99_ms", "login_burst_p99_ms", "lobby_storm_p99_ms", "spectators_p99_ms")
    for key in (*keys, "replay_flood_p99_ms"):
        assert figures[key] is not None and figures[key] > 0, key
    attacks = figures["attacks"]
    # The attacks happened and met the limits: flooders cut off, every spectator seated.
    assert attacks["flood"]["flood:closed_by_server"] >= 1
    assert attacks["login_burst"]["login:401:bad_login"] >= 10
    assert attacks["lobby_rooms"] == 100 and attacks["lobby_storm"]["lobby:200"] >= 4
    assert attacks["spectators"]["spectate:joined"] == 60
    # The replay flood read replays and records (and some readers were told to slow down).
    assert attacks["replay_flood"]["replay:200"] >= 10
