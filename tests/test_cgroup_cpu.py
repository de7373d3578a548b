"""benchmarks/cgroup_cpu.py (``bench_cluster.py --cpu-quota``): the hierarchy found on fake v1, v2
and hybrid trees, the quota written in each version's format, the groups removed at the end (what
is left in them killed), exit 2 where no cgroup can be made; and on this machine a busy loop in a
group capped at 0.2 of a CPU uses at most ~0.3 of one."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from benchmarks.cgroup_cpu import (
    DEFAULT_PERIOD_US,
    DEFAULT_ROOT,
    CgroupUnavailable,
    CpuGroups,
    Hierarchy,
    cpu_seconds,
    detect,
    quota_us,
    writable,
)

BENCH = Path(__file__).parents[1] / "benchmarks" / "bench_cluster.py"


def v1_tree(root: Path, name: str = "cpu") -> Path:
    """A cgroup v1 mount of the cpu controller as the kernel shows it (the files read)."""
    (root / name).mkdir(parents=True)
    (root / name / "cpu.cfs_quota_us").write_text("-1\n")
    (root / name / "cpu.cfs_period_us").write_text("100000\n")
    return root / name


def v2_tree(root: Path, controllers: str = "cpuset cpu io memory pids") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text("memory\n")
    return root


def test_detect_v1_v2_and_hybrid(tmp_path: Path) -> None:
    assert detect(v2_tree(tmp_path / "v2")) == Hierarchy(2, tmp_path / "v2")
    v1 = v1_tree(tmp_path / "v1")
    assert detect(tmp_path / "v1") == Hierarchy(1, v1)
    joint = v1_tree(tmp_path / "joint", "cpu,cpuacct")
    assert detect(tmp_path / "joint") == Hierarchy(1, joint)
    # hybrid (systemd's default before v2): a unified hierarchy without cpu, the cpu one on v1
    v2_tree(tmp_path / "hybrid" / "unified", controllers="hugetlb")
    hybrid = v1_tree(tmp_path / "hybrid")
    assert detect(tmp_path / "hybrid") == Hierarchy(1, hybrid)
    # hybrid with cpu given to the unified hierarchy: that one
    v2_tree(tmp_path / "hybrid2" / "unified", controllers="cpu pids")
    v1_tree(tmp_path / "hybrid2")
    assert detect(tmp_path / "hybrid2") == Hierarchy(2, tmp_path / "hybrid2" / "unified")


def test_no_cpu_controller_is_unavailable(tmp_path: Path) -> None:
    v2_tree(tmp_path, controllers="memory pids")  # a v2 without cpu, and no v1 cpu mount
    with pytest.raises(CgroupUnavailable, match="no cgroup hierarchy with the cpu controller"):
        detect(tmp_path)
    with pytest.raises(CgroupUnavailable):
        detect(tmp_path / "missing")


def test_quota_format_v1(tmp_path: Path) -> None:
    v1 = v1_tree(tmp_path)
    with CpuGroups(0.4, root=tmp_path, name="run") as groups:
        first, second = groups.new(), groups.new()
        assert (first.path, second.path) == (v1 / "run" / "node-0", v1 / "run" / "node-1")
        assert (first.path / "cpu.cfs_period_us").read_text() == "10000"
        assert (first.path / "cpu.cfs_quota_us").read_text() == "4000"  # 0.4 × the period
        assert (second.path / "cpu.cfs_quota_us").read_text() == "4000"
        assert not (first.path / "cpu.max").exists()
    assert not (v1 / "run").exists()
    assert (v1 / "cpu.cfs_quota_us").read_text() == "-1\n"  # the root's own cap untouched


def test_quota_format_v2(tmp_path: Path) -> None:
    v2_tree(tmp_path)
    with CpuGroups(0.4, root=tmp_path, period_us=100_000, name="run") as groups:
        group = groups.new()
        assert (group.path / "cpu.max").read_text() == "40000 100000"  # "QUOTA PERIOD"
        assert not (group.path / "cpu.cfs_quota_us").exists()
        # cpu enabled for the children of the root and of the run's parent group
        assert (tmp_path / "cgroup.subtree_control").read_text() == "+cpu"
        assert (tmp_path / "run" / "cgroup.subtree_control").read_text() == "+cpu"
    assert not (tmp_path / "run").exists()


def test_quota_bounds() -> None:
    assert quota_us(0.4, DEFAULT_PERIOD_US) == 4000
    assert quota_us(1.5, 100_000) == 150_000  # more than one CPU is a quota too
    with pytest.raises(ValueError, match="1 ms quota"):
        quota_us(0.05, 10_000)
    with pytest.raises(ValueError, match="period"):
        quota_us(0.4, 500)


def test_cleanup_kills_what_is_left_and_removes_the_groups(tmp_path: Path) -> None:
    v1 = v1_tree(tmp_path)
    left = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with pytest.raises(KeyboardInterrupt), CpuGroups(0.4, root=tmp_path, name="run") as groups:
            groups.new().add(left.pid)
            groups.new()
            raise KeyboardInterrupt  # interrupted mid-run: the groups go all the same
        assert left.wait(10) == -9
    finally:
        left.kill()
        left.wait()
    assert not (v1 / "run").exists()
    assert sorted(p.name for p in v1.iterdir()) == ["cpu.cfs_period_us", "cpu.cfs_quota_us"]


def test_unwritable_hierarchy_is_unavailable(tmp_path: Path) -> None:
    # the parent group can't be made (here: a file is in its way; read-only or not root on a
    # real machine): the error says so and names root, nothing is left behind
    v1 = v1_tree(tmp_path)
    (v1 / "run").write_text("")
    with pytest.raises(CgroupUnavailable, match="needs root"), CpuGroups(0.4, tmp_path, name="run"):
        pass
    assert (v1 / "run").is_file()


def test_bench_cluster_exits_2_without_a_cgroup(tmp_path: Path) -> None:
    """Before any server is started: a message on stderr, exit status 2."""
    result = subprocess.run(
        [sys.executable, str(BENCH), "--json", "--cpu-quota", "0.4", "--cgroup-root", tmp_path],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert "--cpu-quota" in result.stderr and "cpu controller" in result.stderr
    assert result.stdout == ""


@pytest.mark.skipif(
    not writable(), reason=f"no writable cgroup cpu hierarchy at {DEFAULT_ROOT} (not root)"
)
def test_real_group_caps_a_busy_loop() -> None:
    with CpuGroups(0.2) as groups:
        group = groups.new()
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=group.join)
        assert group.pids() == [busy.pid]
        time.sleep(0.2)
        start, used = time.monotonic(), cpu_seconds(busy.pid)
        time.sleep(1.0)
        share = (cpu_seconds(busy.pid) - used) / (time.monotonic() - start)
        parent = groups.parent
    # uncapped it would use a whole CPU (less on a loaded machine, never more than 1)
    assert share <= 0.3, share
    assert busy.wait(10) == -9  # killed with the group
    assert not parent.exists()
