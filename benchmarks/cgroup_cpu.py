"""A share of a CPU for the benchmarks' server processes: one cgroup each, capped by the kernel.

``bench_cluster.py --cpu-quota Q`` runs every ``laizi serve`` in a group of its own capped at ``Q``
of one CPU, so that on a small machine the servers, not the machine (the clients, Redis and
PostgreSQL share its cores, uncapped), set what is measured.  Either hierarchy is used, whichever
the machine has for the ``cpu`` controller:

- cgroup v2 (a unified hierarchy whose ``cgroup.controllers`` lists ``cpu``, at the root or at
  ``unified/`` on a hybrid machine): ``cpu.max`` is ``"QUOTA PERIOD"`` (µs); ``cpu`` is enabled in
  the parents' ``cgroup.subtree_control`` when it is not yet;
- cgroup v1 (``cpu/`` with ``cpu.cfs_quota_us``): ``cpu.cfs_period_us`` then ``cpu.cfs_quota_us``
  (``Q × period``).

The groups are made under one parent, ``laizi-bench-PID``, in the hierarchy; ``CpuGroups`` (a
context manager) removes them at the end, error or interrupt included, after killing what is still
in them (the server's own worker processes: the benchmark started them all).  A process joins its
group before it runs a line of its own (:meth:`CpuGroup.join` as ``preexec_fn``), so its threads
and the processes it starts are capped with it.  Making the groups needs root (or a delegated
hierarchy): where nothing is writable, :class:`CgroupUnavailable` says why.

The period is 10 ms, not the kernel's 100 ms: a capped process that has used its share waits for
the next period, up to ``(1 - Q) × period`` — 60 ms with 100 ms at ``Q`` 0.4, more than the 50 ms
p99 the benchmark holds the servers to; 6 ms with 10 ms.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

DEFAULT_ROOT = Path("/sys/fs/cgroup")
DEFAULT_PERIOD_US = 10_000
MIN_QUOTA_US = 1_000  # the kernel refuses less (EINVAL), in both versions
V1_NAMES = ("cpu", "cpu,cpuacct", "cpuacct,cpu")  # how distributions mount the v1 cpu controller
# What a fake hierarchy (a plain directory, as in the tests) holds after use; never a cgroup's.
_WRITTEN: tuple[str, ...] = ("cgroup.procs", "cgroup.subtree_control", "cpu.max")
_WRITTEN += ("cpu.cfs_quota_us", "cpu.cfs_period_us")


class CgroupUnavailable(Exception):
    """No cgroup hierarchy with the cpu controller, or none this process may write."""


@dataclass(frozen=True)
class Hierarchy:
    """Where the cpu controller is: ``version`` 1 or 2, mounted at ``path``."""

    version: int
    path: Path


def detect(root: Path = DEFAULT_ROOT) -> Hierarchy:
    """The hierarchy with the cpu controller under ``root``: v2 first (where ``cpu`` is listed in a
    unified hierarchy it is the one in use), then v1."""
    for path in (root, root / "unified"):
        try:
            controllers = (path / "cgroup.controllers").read_text().split()
        except OSError:
            continue
        if "cpu" in controllers:
            return Hierarchy(2, path)
    for name in V1_NAMES:
        if (root / name / "cpu.cfs_quota_us").is_file():
            return Hierarchy(1, root / name)
    raise CgroupUnavailable(
        f"no cgroup hierarchy with the cpu controller under {root} (neither cgroup v2's "
        f"{root}/cgroup.controllers listing cpu nor cgroup v1's {root}/cpu/cpu.cfs_quota_us)"
    )


def writable(root: Path = DEFAULT_ROOT) -> bool:
    """Whether groups can be made here (a probe group made and removed)."""
    try:
        with CpuGroups(0.5, root, name=f"laizi-probe-{os.getpid()}"):
            return True
    except CgroupUnavailable:
        return False


def quota_us(share: float, period_us: int) -> int:
    """``share`` of one CPU in µs of CPU time per ``period_us``."""
    if not 1_000 <= period_us <= 1_000_000:
        raise ValueError("the period is 1 ms to 1 s (1000–1000000 µs)")
    quota = round(share * period_us)
    if quota < MIN_QUOTA_US:
        raise ValueError(f"a share of {share} of {period_us} µs is under the kernel's 1 ms quota")
    return quota


def _write(path: Path, text: str) -> None:
    path.write_text(text)


@dataclass(frozen=True)
class CpuGroup:
    """One capped group: the processes written to its ``cgroup.procs`` share its quota."""

    path: Path

    @property
    def procs(self) -> Path:
        return self.path / "cgroup.procs"

    def add(self, pid: int) -> None:
        """Move process ``pid`` (all its threads) into the group."""
        fd = os.open(self.procs, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, f"{pid}\n".encode())
        finally:
            os.close(fd)

    def join(self) -> None:
        """Move the calling process into the group: ``subprocess.Popen(..., preexec_fn=g.join)``
        runs it in the child between fork and exec (only ``os`` calls: nothing that locks)."""
        self.add(os.getpid())

    def pids(self) -> list[int]:
        try:
            return [int(line) for line in self.procs.read_text().split()]
        except FileNotFoundError:
            return []


class CpuGroups:
    """The groups of one run, each capped at ``share`` of a CPU, under ``laizi-bench-PID``.

    Entering makes the parent group (and so checks the hierarchy can be written: otherwise
    :class:`CgroupUnavailable`); :meth:`new` makes one group per process; leaving kills what is
    left in them and removes them all."""

    def __init__(
        self,
        share: float,
        root: Path = DEFAULT_ROOT,
        period_us: int = DEFAULT_PERIOD_US,
        name: str | None = None,
    ) -> None:
        self.share, self.period_us = share, period_us
        self.quota_us = quota_us(share, period_us)
        self.hierarchy = detect(root)
        self.parent = self.hierarchy.path / (name or f"laizi-bench-{os.getpid()}")
        self.groups: list[CpuGroup] = []
        self.made_parent = False

    def __enter__(self) -> CpuGroups:
        try:
            if self.hierarchy.version == 2:
                self._enable_cpu(self.hierarchy.path)
            self.parent.mkdir()
            self.made_parent = True
            if self.hierarchy.version == 2:
                self._enable_cpu(self.parent)
        except OSError as e:
            self.close()
            raise CgroupUnavailable(
                f"cannot make a cgroup at {self.parent} ({e.strerror or e}): "
                "--cpu-quota needs root (or a delegated cgroup hierarchy)"
            ) from e
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    @staticmethod
    def _enable_cpu(path: Path) -> None:
        """cgroup v2: the children of ``path`` get the cpu controller (``cpu.max``)."""
        control = path / "cgroup.subtree_control"
        try:
            enabled = control.read_text().split()
        except FileNotFoundError:
            enabled = []
        if "cpu" not in enabled:
            _write(control, "+cpu")

    def new(self) -> CpuGroup:
        """A new group capped at the share."""
        group = CpuGroup(self.parent / f"node-{len(self.groups)}")
        group.path.mkdir()
        self.groups.append(group)
        if self.hierarchy.version == 2:
            _write(group.path / "cpu.max", f"{self.quota_us} {self.period_us}")
        else:  # the period first: a quota is checked against the period in force
            _write(group.path / "cpu.cfs_period_us", str(self.period_us))
            _write(group.path / "cpu.cfs_quota_us", str(self.quota_us))
        return group

    def close(self, timeout: float = 10.0) -> None:
        """Kill what is left in the groups, then remove them and the parent (each once).  A group
        that can't be removed is named on stderr (it would hide the error being raised)."""
        for group in reversed(self.groups):
            _empty(group, timeout)
            _remove(group.path)
        self.groups.clear()
        if self.made_parent:
            _remove(self.parent)
            self.made_parent = False


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system, all threads) process ``pid`` has used: /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _empty(group: CpuGroup, timeout: float) -> None:
    """SIGKILL every process in ``group`` until none is left (a cgroup with one can't go)."""
    deadline = time.monotonic() + timeout
    while pids := group.pids():
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        # v1's groups have ``tasks``, v2's ``cgroup.controllers``; a fake hierarchy (a plain
        # directory, in the tests) has neither and its cgroup.procs never empties by itself
        real = (
            group.path.joinpath("tasks").exists()
            or group.path.joinpath("cgroup.controllers").exists()
        )
        if not real or time.monotonic() > deadline:
            return
        time.sleep(0.02)


def _remove(path: Path) -> None:
    """``rmdir`` a group (a cgroup's files go with it); a plain directory (a fake hierarchy) holds
    the files this module wrote, removed first."""
    try:
        try:
            path.rmdir()
        except OSError as e:
            if e.errno != errno.ENOTEMPTY:
                raise
            for name in _WRITTEN:
                path.joinpath(name).unlink(missing_ok=True)
            path.rmdir()
    except FileNotFoundError:
        return
    except OSError as e:
        print(f"cgroup_cpu: could not remove {path}: {e.strerror or e}", file=sys.stderr)
