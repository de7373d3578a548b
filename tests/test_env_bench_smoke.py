"""CI's short run of the environment benchmark: it runs and prints INTERFACES.md's keys."""

from tests.bench_helpers import run_bench


def test_bench_env_smoke():
    figures = run_bench(
        "bench_env.py", "--hands", "1", "--tables", "4", "--rounds", "10", "--repeat", "1"
    )
    assert figures["env_steps_per_s"] > 0
    assert figures["batch_steps_per_s"] > 0
    assert figures["vector_steps_per_s"] > 0
    assert figures["vector_steps_per_s_nocopy"] > 0
    assert figures["steps_per_hand"] > 10
    assert figures["hands_per_preset"] == 1
