"""Building a recipe's dataset shard by shard, resumably (``laizi dataset build``).

``DIR/part-NNNNN.parquet`` is shard ``N`` (the rows of ``laizi export``, ``docs/dataset.md``),
``DIR/manifest.json`` says which shards are done, with each file's SHA-256, row count and build
time.  A shard is played and written under ``DIR/.shard-NNNNN.tmp/`` and renamed into place only
when complete, then entered in the manifest (itself replaced atomically), so an interrupted build
leaves finished shards and a temporary directory; building again checks every finished shard's
hash, removes what does not match or is not in the manifest, and plays only the missing shards.
:func:`check` verifies a directory against its manifest (``laizi dataset info``).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import queue
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from laizi import __version__
from laizi.dataset.recipes import Recipe, RecipeError

__all__ = ["MANIFEST", "build", "build_shard", "check", "load_manifest", "shard_file"]

MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1
"""The manifest's own layout version (``"format"``)."""


def shard_file(index: int) -> str:
    """Shard ``index``'s file name (``read_rows(DIR)`` reads them all, in order).

    >>> shard_file(7)
    'part-00007.parquet'
    """
    return f"part-{index:05d}.parquet"


def _tmp_dir(out: Path, index: int) -> Path:
    return out / f".shard-{index:05d}.tmp"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- one shard ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShardJob:
    recipe: Recipe
    index: int
    out: str


def build_shard(job: ShardJob, tick: Callable[[], None] = lambda: None) -> dict[str, Any]:
    """Play shard ``job.index`` of the recipe and write it atomically; its manifest entry.

    Hand ``j`` is hand ``j`` of ``laizi simulate --bots … --rules PRESET --seed SEED`` (the same
    wall seed, dealer and bot seeds); ``tick`` is called after each hand.
    """
    from laizi.bots.base import make_bot
    from laizi.dataset.parquet import DatasetWriter
    from laizi.dataset.sources import Hand
    from laizi.engine import make_ruleset
    from laizi.sim.hand import derive_seed, play_hand, wall_seed

    started, cpu = time.perf_counter(), time.process_time()
    recipe, index, out = job.recipe, job.index, Path(job.out)
    preset, seed = recipe.preset(index), recipe.seed(index)
    ruleset = make_ruleset(preset)
    tmp = _tmp_dir(out, index)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        writer = DatasetWriter(
            tmp,
            encoder=recipe.encoder,
            first_hand=index * recipe.shard_hands,
            file_rows=1 << 62,  # one file per shard, whatever its size
        )
        for j in range(recipe.shard_hands):
            bots = [
                make_bot(name, ruleset.settings, derive_seed(seed, j, s))
                for s, name in enumerate(recipe.bots)
            ]
            outcome = play_hand(ruleset, bots, j % 4, wall_seed(seed, j), record=True)
            assert outcome.events is not None
            writer.add(Hand(f"{recipe.name}/{index:05d}#{j}", outcome.events))
            tick()
        (written,) = writer.close()
        with written.open("rb") as stream:
            os.fsync(stream.fileno())
        final = out / shard_file(index)
        os.replace(written, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {
        "index": index,
        "file": final.name,
        "preset": preset,
        "seed": seed,
        "hands": recipe.shard_hands,
        "rows": writer.total_rows,
        "bytes": final.stat().st_size,
        "sha256": _sha256(final),
        "seconds": round(time.perf_counter() - started, 3),
        "cpu_seconds": round(time.process_time() - cpu, 3),
        "load": round(os.getloadavg()[0], 2),
        "package_version": __version__,
    }


# --- the manifest ------------------------------------------------------------------------------


def load_manifest(out: Path) -> dict[str, Any] | None:
    """``out``'s manifest, None when there is none; RecipeError when it is not one."""
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise RecipeError(
            f"{path} 不是数据集清单（{error}）", f"{path} is not a dataset manifest ({error})"
        ) from None
    if (
        not isinstance(data, dict)
        or data.get("format") != MANIFEST_FORMAT
        or not isinstance(data.get("recipe"), str)
        or not isinstance(data.get("shards"), list)
        or not isinstance(data.get("spec"), dict)
    ):
        raise RecipeError(
            f"{path} 不是 laizi dataset build 写的清单",
            f"{path} is not a manifest written by laizi dataset build",
        )
    return data


def _write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    manifest["shards"].sort(key=lambda entry: entry["index"])
    manifest["shards_done"] = len(manifest["shards"])
    manifest["complete"] = manifest["shards_done"] == manifest["shards_total"]
    tmp = out / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, out / MANIFEST)


def _new_manifest(recipe: Recipe) -> dict[str, Any]:
    return {
        "format": MANIFEST_FORMAT,
        "recipe": recipe.name,
        "version": recipe.version,
        "package_version": __version__,
        "encoder": recipe.encoder,
        "spec": recipe.to_json(),
        "shards_total": recipe.shards,
        "shards_done": 0,
        "complete": False,
        "shards": [],
    }


def _entry_problem(out: Path, entry: Any) -> str | None:
    """Why a manifest entry's file is not the one the manifest names (None: it is)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("index"), int):
        return "not a shard entry"
    path = out / shard_file(entry["index"])
    if not path.is_file():
        return "missing"
    if path.stat().st_size != entry.get("bytes"):
        return f"{path.stat().st_size} bytes, the manifest says {entry.get('bytes')}"
    if _sha256(path) != entry.get("sha256"):
        return "SHA-256 differs from the manifest's"
    return None


def _prepare(recipe: Recipe, out: Path, warn: Callable[[str], None]) -> tuple[dict[str, Any], int]:
    """The directory made ready: its manifest (created, or checked and pruned of shards whose
    file does not match) and the number of shards dropped for that."""
    if out.exists() and not out.is_dir():
        raise RecipeError(
            f"--out {out}：这是一个文件，不是目录", f"--out {out}: a file, not a directory"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
        manifest = load_manifest(out)
        if manifest is None:
            if any(out.iterdir()):
                raise RecipeError(
                    f"--out {out}：目录不空，又没有 {MANIFEST}；请用一个空目录或新目录",
                    f"--out {out}: the directory is not empty and holds no {MANIFEST}; "
                    "choose an empty or new one",
                )
            manifest = _new_manifest(recipe)
        elif (manifest["recipe"], manifest.get("version")) != (recipe.name, recipe.version):
            theirs = f"{manifest['recipe']} v{manifest.get('version')}"
            raise RecipeError(
                f"--out {out}：目录里是配方 {theirs} 的数据集，不是 {recipe.name} "
                f"v{recipe.version}；请换一个目录",
                f"--out {out}: the directory holds a dataset of recipe {theirs}, not "
                f"{recipe.name} v{recipe.version}; choose another directory",
            )
        elif manifest["spec"] != recipe.to_json():
            raise RecipeError(
                f"--out {out}：配方 {recipe.name} v{recipe.version} 的内容与清单记录的不同"
                "（代码改了配方却没升版本）；请换一个目录",
                f"--out {out}: recipe {recipe.name} v{recipe.version} differs from the one its "
                "manifest records (the recipe was changed without a new version); choose "
                "another directory",
            )
        for stale in out.glob(".shard-*.tmp"):
            shutil.rmtree(stale, ignore_errors=True)
        kept, dropped = [], 0
        for entry in manifest["shards"]:
            problem = _entry_problem(out, entry)
            if problem is None:
                kept.append(entry)
                continue
            dropped += 1
            if isinstance(entry, dict) and isinstance(entry.get("index"), int):
                (out / shard_file(entry["index"])).unlink(missing_ok=True)
                warn(f"shard {entry['index']}: {problem}; building it again")
        listed = {shard_file(entry["index"]) for entry in kept}
        for path in out.glob("part-*.parquet"):
            if path.name not in listed:  # renamed into place, then interrupted
                path.unlink()
        if manifest.get("package_version") != __version__ and kept:
            warn(
                f"{len(kept)} shard(s) were built by laizi {manifest.get('package_version')}, "
                f"the rest will be by {__version__} (each shard's entry names its version)"
            )
        manifest["shards"] = kept
        manifest["package_version"] = __version__
        _write_manifest(out, manifest)
    except OSError as error:
        raise RecipeError(
            f"--out {out}：{error.strerror or error}", f"--out {out}: {error.strerror or error}"
        ) from None
    return manifest, dropped


# --- the build ---------------------------------------------------------------------------------


def build(
    recipe: Recipe,
    out: str | Path,
    *,
    workers: int = 1,
    limit_shards: int | None = None,
    progress: bool = False,
    warn: Callable[[str], None] = lambda message: print(message, file=sys.stderr),
    processes: bool | None = None,
) -> dict[str, Any]:
    """Build (or finish) ``recipe``'s shards under ``out``; the report.

    ``limit_shards``: only shards ``0 … N-1``.  ``workers``: shards played at once, each in a
    worker process; ``processes`` forces worker processes (or none) whatever ``workers`` is.
    Raises RecipeError for a directory that can't be used.
    """
    if workers < 1:
        raise RecipeError("--workers 至少为 1", "--workers: at least 1")
    root = Path(out)
    started = time.perf_counter()
    manifest, dropped = _prepare(recipe, root, warn)
    wanted = recipe.shards if limit_shards is None else max(0, min(limit_shards, recipe.shards))
    done = {entry["index"] for entry in manifest["shards"]}
    todo = [i for i in range(wanted) if i not in done]
    jobs = [ShardJob(recipe, i, str(root)) for i in todo]

    def finished(entry: dict[str, Any]) -> None:
        manifest["shards"].append(entry)
        _write_manifest(root, manifest)

    use_processes = workers > 1 if processes is None else processes
    with _Bar(progress, recipe, len(jobs)) as bar:
        try:
            if use_processes and jobs:
                _in_pool(jobs, min(workers, len(jobs)), bar, finished)
            else:
                for job in jobs:
                    finished(build_shard(job, bar.tick))
                    bar.shard_done()
        except OSError as error:
            raise RecipeError(
                f"--out {root}：{error.strerror or error}",
                f"--out {root}: {error.strerror or error}",
            ) from None
    entries = manifest["shards"]
    return {
        "recipe": recipe.name,
        "version": recipe.version,
        "out": str(root),
        "shards_total": recipe.shards,
        "shards_done": len(entries),
        "built": len(jobs),
        "skipped": len([i for i in range(wanted) if i in done]),
        "redone": dropped,
        "complete": len(entries) == recipe.shards,
        "hands": sum(e["hands"] for e in entries),
        "rows": sum(e["rows"] for e in entries),
        "bytes": sum(e["bytes"] for e in entries),
        "seconds": time.perf_counter() - started,
    }


_TICKS: Any = None


def _start_worker(ticks: Any) -> None:
    global _TICKS
    _TICKS = ticks


def _shard_in_worker(job: ShardJob) -> dict[str, Any]:
    return build_shard(job, lambda: _TICKS.put(1))


def _in_pool(
    jobs: list[ShardJob], workers: int, bar: _Bar, finished: Callable[[dict[str, Any]], None]
) -> None:
    """The shards in ``workers`` processes; each entered in the manifest as it finishes."""
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    ticks = context.Queue()
    pool = context.Pool(workers, initializer=_start_worker, initargs=(ticks,))
    ok = False
    try:
        pending = [pool.apply_async(_shard_in_worker, (job,)) for job in jobs]
        while pending:
            try:
                ticks.get(timeout=0.2)
                bar.tick()
                continue
            except queue.Empty:
                pass
            for result in [r for r in pending if r.ready()]:
                pending.remove(result)
                finished(result.get())
                bar.shard_done()
        ok = True
    finally:
        if ok:
            pool.close()
        else:
            pool.terminate()
        pool.join()


class _Bar:
    """The rich progress bar on stderr (hands played, shards done), or nothing."""

    def __init__(self, show: bool, recipe: Recipe, shards: int) -> None:
        self.recipe, self.shards, self.done = recipe, shards, 0
        self.progress: Any = None
        if show and shards:
            from laizi.sim.progress import stderr_bar

            self.progress = stderr_bar("hands")
            self.task = self.progress.add_task(self._label(), total=shards * recipe.shard_hands)

    def _label(self) -> str:
        return f"{self.recipe.name}: {self.done}/{self.shards} shards"

    def __enter__(self) -> _Bar:
        if self.progress is not None:
            self.progress.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def tick(self) -> None:
        if self.progress is not None:
            self.progress.advance(self.task, 1)

    def shard_done(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress.update(self.task, description=self._label())


# --- checking ----------------------------------------------------------------------------------


def check(out: str | Path) -> dict[str, Any]:
    """``out`` verified against its manifest: every listed shard's file present, of its size,
    SHA-256 and row count, and no unlisted shard file.  The report; ``problems`` lists what
    does not match (empty: all is well).  RecipeError when ``out`` holds no manifest."""
    root = Path(out)
    if not root.is_dir():
        raise RecipeError(f"{root}：不是目录", f"{root}: not a directory")
    manifest = load_manifest(root)
    if manifest is None:
        raise RecipeError(
            f"{root}：没有 {MANIFEST}（不是 laizi dataset build 建的目录）",
            f"{root}: no {MANIFEST} (not a directory laizi dataset build made)",
        )
    try:
        return _check(root, manifest)
    except (KeyError, TypeError, ValueError) as error:
        raise RecipeError(
            f"{root / MANIFEST}：清单内容不完整（{error!r}）",
            f"{root / MANIFEST}: a malformed manifest ({error!r})",
        ) from None


def _check(root: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    problems: list[str] = []
    entries = [e for e in manifest["shards"] if isinstance(e, dict)]
    for entry in manifest["shards"]:
        problem = _entry_problem(root, entry)
        if problem is None:
            problem = _rows_problem(root / shard_file(entry["index"]), entry.get("rows"))
        if problem is not None:
            name = entry.get("index") if isinstance(entry, dict) else entry
            problems.append(f"shard {name}: {problem}")
    listed = {shard_file(e["index"]) for e in entries if isinstance(e.get("index"), int)}
    problems += [
        f"{path.name}: not in the manifest"
        for path in sorted(root.glob("part-*.parquet"))
        if path.name not in listed
    ]
    seconds = sum(float(e.get("seconds", 0)) for e in entries)
    done = len(entries)
    total = int(manifest.get("shards_total", 0))
    return {
        "recipe": manifest["recipe"],
        "version": manifest.get("version"),
        "about": manifest["spec"].get("about"),
        "encoder": manifest.get("encoder"),
        "package_version": manifest.get("package_version"),
        "built_by": sorted({str(e.get("package_version")) for e in entries}),
        "out": str(root),
        "shards_total": total,
        "shards_done": done,
        "complete": done == total,
        "hands": sum(int(e.get("hands", 0)) for e in entries),
        "rows": sum(int(e.get("rows", 0)) for e in entries),
        "bytes": sum(int(e.get("bytes", 0)) for e in entries),
        "seconds": seconds,
        "seconds_per_shard": seconds / done if done else None,
        "ok": not problems,
        "problems": problems,
    }


def _rows_problem(path: Path, rows: Any) -> str | None:
    import pyarrow.parquet as pq

    try:
        actual = pq.ParquetFile(path).metadata.num_rows
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        return f"not a Parquet file ({error})"
    return None if actual == rows else f"{actual} rows, the manifest says {rows}"
