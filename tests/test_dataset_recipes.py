"""``laizi dataset build --recipe NAME --out DIR`` (issue 28 item 7): named, resumable datasets.

A small recipe of the real bot (``expert``, two presets, three shards of two hands) is built
once; the tests rebuild it from scratch (byte for byte the same), resume it after a shard is
deleted, truncated or left half-written (only that shard is played again), check its rows
against self-play records of the same seeds, and give the command bad input.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from laizi.dataset.build import build, check, shard_file
from laizi.dataset.export import export
from laizi.dataset.parquet import dataset_metadata, read_rows
from laizi.dataset.recipes import (
    Recipe,
    RecipeError,
    find_recipe,
    register_recipe,
    shard_seed,
)
from laizi.dataset.sources import hands_from_paths
from laizi.engine.actions import ABANDON
from laizi.engine.record import action_of, parse_record
from laizi.env.table import action_index
from laizi.sim import simulate
from tests.cli_helpers import ANSI, read_until, run, spawn_in_pty

TINY = Recipe(
    name="test-tiny-expert",
    version=1,
    about="tests: three shards of two expert self-play hands",
    bots=("expert", "expert", "expert", "expert"),
    cycle=("wuhan-hongzhong-kaikou", "baishan"),
    shards=3,
    shard_hands=2,
    encoder="v2",
)


def files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.glob("part-*.parquet"))}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny recipe built in two runs: shards 0–1 (``limit_shards``), then the rest."""
    register_recipe(TINY)
    out = tmp_path_factory.mktemp("tiny") / "data"
    first = build(TINY, out, limit_shards=2)
    assert (first["built"], first["skipped"], first["shards_done"], first["complete"]) == (
        2,
        0,
        2,
        False,
    )
    second = build(TINY, out)
    assert (second["built"], second["skipped"], second["shards_done"], second["complete"]) == (
        1,
        2,
        3,
        True,
    )
    return out


# --- the recipes -------------------------------------------------------------------------------


def test_the_expert_recipe_is_fixed_and_sized() -> None:
    recipe = find_recipe("expert-selfplay-v1")
    assert recipe.bots == ("expert-blind@200",) * 4
    assert (recipe.shards, recipe.shard_hands, recipe.hands, recipe.encoder) == (
        80,
        250,
        20000,
        "v2",
    )
    assert recipe.shares() == {
        "baishan": Fraction(3, 10),
        "wuhan-hongzhong-kaikou": Fraction(1, 5),
        "wuhan-hongzhong-koukou": Fraction(1, 10),
        "wuhan-facai-kaikou": Fraction(1, 10),
        "wuhan-facai-koukou": Fraction(1, 10),
        "wuhan-qipi-kaikou": Fraction(1, 10),
        "wuhan-qipi-koukou": Fraction(1, 10),
    }
    # every ten consecutive shards hold the whole mix
    window = [recipe.preset(i) for i in range(30, 40)]
    assert window.count("baishan") == 3 and window.count("wuhan-hongzhong-kaikou") == 2
    seeds = [recipe.seed(i) for i in range(recipe.shards)]
    assert len(set(seeds)) == recipe.shards and all(0 <= s < 2**63 for s in seeds)
    assert seeds[0] == shard_seed("expert-selfplay-v1", 0) != shard_seed("expert-selfplay-v2", 0)


def test_a_recipe_name_is_never_redefined() -> None:
    register_recipe(TINY)  # the same contents again: fine
    with pytest.raises(ValueError, match="registered already"):
        register_recipe(replace(TINY, shard_hands=3))


def test_an_impossible_recipe_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown presets"):
        Recipe("x", 1, "", ("random",) * 4, ("wuhan-nothing",), 1, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="encoder"):
        Recipe("x", 1, "", ("random",) * 4, ("baishan",), 1, 1, encoder="v9")  # type: ignore[arg-type]


def test_an_unknown_recipe_is_named_in_both_languages() -> None:
    with pytest.raises(RecipeError) as caught:
        find_recipe("expert-selfplay-v0")
    assert "unknown recipe 'expert-selfplay-v0'; known: " in caught.value.en
    assert "expert-selfplay-v1" in caught.value.en
    assert caught.value.zh.startswith("未知的数据集配方 'expert-selfplay-v0'")


# --- the build ---------------------------------------------------------------------------------


def test_the_manifest_lists_every_shard_with_its_hash(built: Path) -> None:
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["recipe"] == "test-tiny-expert" and manifest["version"] == 1
    assert manifest["encoder"] == "v2" and manifest["spec"] == TINY.to_json()
    assert manifest["package_version"] and manifest["complete"] is True
    assert [e["index"] for e in manifest["shards"]] == [0, 1, 2]
    assert [e["preset"] for e in manifest["shards"]] == [
        "wuhan-hongzhong-kaikou",
        "baishan",
        "wuhan-hongzhong-kaikou",
    ]
    for entry in manifest["shards"]:
        path = built / shard_file(entry["index"])
        assert entry["file"] == path.name and entry["bytes"] == path.stat().st_size
        assert entry["seed"] == TINY.seed(entry["index"]) and entry["hands"] == 2
        assert entry["seconds"] > 0 and entry["cpu_seconds"] > 0
        rows = sum(len(b["seat"]) for b in read_rows(path, columns=["seat"]))
        assert rows == entry["rows"] > 0
        assert dataset_metadata(path)["encoder"] == "v2"
    assert sorted(p.name for p in built.iterdir()) == [
        "manifest.json",
        "part-00000.parquet",
        "part-00001.parquet",
        "part-00002.parquet",
    ]
    report = check(built)
    assert report["ok"] and report["problems"] == []
    assert (report["shards_done"], report["hands"]) == (3, 6)
    assert report["rows"] == sum(e["rows"] for e in manifest["shards"])


def test_a_rebuild_from_scratch_is_byte_identical(built: Path, tmp_path: Path) -> None:
    again = build(TINY, tmp_path / "again")
    assert again["built"] == 3
    assert files(tmp_path / "again") == files(built)
    hashes = [e["sha256"] for e in json.loads((built / "manifest.json").read_text())["shards"]]
    rebuilt = json.loads((tmp_path / "again" / "manifest.json").read_text())["shards"]
    assert [e["sha256"] for e in rebuilt] == hashes


def test_worker_processes_write_the_same_shards(built: Path, tmp_path: Path) -> None:
    report = build(TINY, tmp_path / "pool", limit_shards=2, processes=True)
    assert report["built"] == 2
    ours = files(tmp_path / "pool")
    assert ours == {k: v for k, v in files(built).items() if k in ours} and len(ours) == 2


def _copy(built: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    shutil.copytree(built, out)
    return out


def _inodes(out: Path) -> dict[str, int]:
    return {p.name: p.stat().st_ino for p in out.glob("part-*.parquet")}


def test_a_deleted_shard_alone_is_built_again(built: Path, tmp_path: Path) -> None:
    out = _copy(built, tmp_path)
    (out / "part-00001.parquet").unlink()
    before = _inodes(out)
    warnings: list[str] = []
    report = build(TINY, out, warn=warnings.append)
    assert (report["built"], report["skipped"], report["redone"]) == (1, 2, 1)
    assert warnings == ["shard 1: missing; building it again"]
    after = _inodes(out)
    assert after["part-00000.parquet"] == before["part-00000.parquet"]  # not rewritten
    assert after["part-00002.parquet"] == before["part-00002.parquet"]
    assert files(out) == files(built)


def test_a_truncated_shard_alone_is_built_again(built: Path, tmp_path: Path) -> None:
    out = _copy(built, tmp_path)
    path = out / "part-00002.parquet"
    size = path.stat().st_size
    os.truncate(path, size // 2)
    bad = check(out)
    assert not bad["ok"]
    assert bad["problems"] == [f"shard 2: {size // 2} bytes, the manifest says {size}"]
    before = _inodes(out)
    warnings: list[str] = []
    report = build(TINY, out, warn=warnings.append)
    assert (report["built"], report["skipped"], report["redone"]) == (1, 2, 1)
    assert warnings == [f"shard 2: {size // 2} bytes, the manifest says {size}; building it again"]
    assert _inodes(out)["part-00000.parquet"] == before["part-00000.parquet"]
    assert files(out) == files(built) and check(out)["ok"]


def test_a_changed_shard_of_the_same_size_fails_the_hash(built: Path, tmp_path: Path) -> None:
    out = _copy(built, tmp_path)
    path = out / "part-00000.parquet"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    assert check(out)["problems"] == ["shard 0: SHA-256 differs from the manifest's"]
    report = build(TINY, out, warn=lambda _: None)
    assert (report["built"], report["redone"]) == (1, 1)
    assert files(out) == files(built)


def test_an_interrupted_shard_is_cleaned_up_and_redone(built: Path, tmp_path: Path) -> None:
    """Killed while writing shard 1 (its temporary directory left), or between the rename and
    the manifest (a part file the manifest does not list): both are played again."""
    out = _copy(built, tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["shards"] = [e for e in manifest["shards"] if e["index"] != 2]
    (out / "manifest.json").write_text(json.dumps(manifest))
    (out / "part-00001.parquet").unlink()
    manifest["shards"] = [e for e in manifest["shards"] if e["index"] != 1]
    (out / "manifest.json").write_text(json.dumps(manifest))
    (out / ".shard-00001.tmp").mkdir()
    (out / ".shard-00001.tmp" / "part-00000.parquet").write_bytes(b"PAR1 half")
    assert check(out)["problems"] == ["part-00002.parquet: not in the manifest"]
    report = build(TINY, out)
    assert (report["built"], report["skipped"], report["redone"]) == (2, 1, 0)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in built.iterdir())
    assert files(out) == files(built)


def test_a_changed_recipe_of_the_same_name_is_refused(built: Path, tmp_path: Path) -> None:
    out = _copy(built, tmp_path)
    changed = replace(TINY, shard_hands=5)
    with pytest.raises(RecipeError, match="differs from the one its manifest records"):
        build(changed, out)


# --- the rows against the records --------------------------------------------------------------


def _decisions(events: list[dict]) -> list[tuple[int, int, int]]:
    """(event index, seat, action index) of each decision of a record, read from the record."""
    out = []
    claimed = None
    for k, event in enumerate(events):
        action = action_of(event)
        if action is not None and action.type != ABANDON:
            out.append((k, action.seat, action_index(action, claimed)))
        if event["type"] == "discard":
            claimed = event["tile"]
    return out


def test_the_rows_are_the_decisions_of_the_same_self_play(built: Path, tmp_path: Path) -> None:
    """Shard i's hands are ``laizi simulate``'s hands of the shard's seed: every row is a
    decision of the record, in order, with its seat, its action, and that action legal."""
    for index in range(TINY.shards):
        records = tmp_path / f"records-{index}"
        simulate(
            list(TINY.bots),
            TINY.preset(index),
            hands=TINY.shard_hands,
            seed=TINY.seed(index),
            records=records,
        )
        (batch,) = read_rows(built / shard_file(index))
        for j, path in enumerate(sorted(records.glob("*.jsonl"))):
            events = parse_record(path.read_text(encoding="utf-8"))
            mine = batch["hand"] == index * TINY.shard_hands + j
            expected = _decisions(events)
            assert int(mine.sum()) == len(expected) > 0
            got = list(
                zip(
                    batch["event"][mine].tolist(),
                    batch["seat"][mine].tolist(),
                    batch["action"][mine].tolist(),
                    strict=True,
                )
            )
            assert got == expected
            masks, actions = batch["mask"][mine], batch["action"][mine]
            assert (masks[np.arange(len(actions)), actions] == 1).all()
            assert (batch["legal"][mine] == masks.sum(axis=1)).all()
            assert set(batch["source"][mine]) == {f"test-tiny-expert/{index:05d}#{j}"}
            assert set(batch["preset"][mine]) == {TINY.preset(index)}
            payments = batch["payments"][mine][0]
            assert sum(Fraction(p).limit_denominator(1000) for p in payments) == 0
        # and the same rows as laizi export of those records, column for column
        export(hands_from_paths([str(records)]), tmp_path / f"export-{index}", encoder="v2")
        (theirs,) = read_rows(tmp_path / f"export-{index}")
        for column in ("obs", "mask", "action", "legal", "seat", "event", "step", "points"):
            assert np.array_equal(theirs[column], batch[column]), column
        assert np.array_equal(theirs["hand"] + index * TINY.shard_hands, batch["hand"])


# --- the command -------------------------------------------------------------------------------


def test_the_command_builds_resumes_and_checks(tmp_path: Path) -> None:
    out = tmp_path / "smoke"
    args = ("dataset", "build", "--recipe", "expert-selfplay-smoke", "--out", str(out))
    first = run(*args, "--limit-shards", "1", "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout.splitlines()[-1])
    assert (report["built"], report["shards_done"], report["shards_total"]) == (1, 1, 7)
    assert report["hands"] == 2 and report["rows"] > 0 and not report["complete"]
    again = run(*args, "--limit-shards", "1")
    assert again.returncode == 0, again.stderr
    assert "built 0 shard(s) (skipped 1 finished, redid 0); 1/7 done" in again.stdout
    info = run("dataset", "info", str(out), "--json")
    assert info.returncode == 0, info.stderr
    shown = json.loads(info.stdout.splitlines()[-1])
    assert (shown["recipe"], shown["ok"], shown["rows"]) == (
        "expert-selfplay-smoke",
        True,
        report["rows"],
    )
    os.truncate(out / "part-00000.parquet", 100)
    broken = run("dataset", "info", str(out), "--lang", "zh")
    assert broken.returncode == 4
    assert "不符：shard 0: 100 bytes" in broken.stdout
    listed = run("dataset", "recipes", "--json")
    assert [r["name"] for r in json.loads(listed.stdout)] == [
        "expert-selfplay-v1",
        "expert-selfplay-smoke",
    ]


@pytest.mark.parametrize(
    ("setup", "recipe", "message"),
    [
        (None, "expert-selfplay-v0", "unknown recipe 'expert-selfplay-v0'; known: "),
        ("file", "expert-selfplay-smoke", ": a file, not a directory"),
        ("other", "expert-selfplay-smoke", "holds a dataset of recipe expert-selfplay-v1 v1, not"),
        ("junk", "expert-selfplay-smoke", "is not empty and holds no manifest.json"),
        ("not json", "expert-selfplay-smoke", "manifest.json is not a dataset manifest"),
        ("not ours", "expert-selfplay-smoke", "is not a manifest written by laizi dataset build"),
    ],
)
def test_bad_build_input_is_exit_1(tmp_path: Path, setup, recipe, message) -> None:
    out = tmp_path / "out"
    if setup == "file":
        out.write_text("x")
    elif setup == "other":
        out.mkdir()
        other = find_recipe("expert-selfplay-v1")
        manifest = {"format": 1, "recipe": other.name, "version": 1, "spec": other.to_json()}
        (out / "manifest.json").write_text(json.dumps({**manifest, "shards": []}))
    elif setup == "junk":
        out.mkdir()
        (out / "notes.txt").write_text("mine")
    elif setup == "not json":
        out.mkdir()
        (out / "manifest.json").write_text("{")
    elif setup == "not ours":
        out.mkdir()
        (out / "manifest.json").write_text('{"recipe": 3}')
    result = run("dataset", "build", "--recipe", recipe, "--out", str(out))
    assert result.returncode == 1
    assert message in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.startswith("laizi: ")


def test_bad_input_is_told_in_chinese_too(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    result = run("dataset", "build", "--recipe", "nope", "--out", str(tmp_path), "--lang", "zh")
    assert result.returncode == 1 and "未知的数据集配方 'nope'" in result.stderr
    result = run(
        "dataset",
        "build",
        "--recipe",
        "expert-selfplay-smoke",
        "--out",
        str(tmp_path / "f"),
        "--lang",
        "zh",
    )
    assert result.returncode == 1 and "这是一个文件，不是目录" in result.stderr
    result = run("dataset", "info", str(tmp_path), "--lang", "zh")
    assert result.returncode == 1 and "没有 manifest.json" in result.stderr
    result = run("dataset", "info", str(tmp_path / "nowhere"))
    assert result.returncode == 1 and "not a directory" in result.stderr


def test_the_build_shows_a_progress_bar_of_hands_and_shards(tmp_path: Path) -> None:
    """On a terminal: the recipe, the shards done and the hands played of those to play."""
    args = ["dataset", "build", "--recipe", "expert-selfplay-smoke", "--out", str(tmp_path / "d")]
    process, main = spawn_in_pty(*args, "--limit-shards", "1", "--lang", "en")
    try:
        text = ANSI.sub("", read_until(main, (), timeout=120))  # all of it, until it closes
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)
    bars = re.findall(r"expert-selfplay-smoke: (\d)/1 shards[^\n\r]*? (\d)/2 hands", text)
    assert ("0", "0") in bars and ("0", "1") in bars, text[-2000:]
    assert process.returncode == 0
    assert "built 1 shard(s) (skipped 0 finished, redid 0); 1/7 done; 2 hands" in text


def test_a_malformed_manifest_is_bad_input_for_info(built: Path, tmp_path: Path) -> None:
    out = _copy(built, tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["shards"][0]["hands"] = "many"
    (out / "manifest.json").write_text(json.dumps(manifest))
    result = run("dataset", "info", str(out))
    assert result.returncode == 1 and "a malformed manifest" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["build", "info", "recipes"])
def test_dataset_help_shows_flags_without_a_value(command: str) -> None:
    result = run("dataset", command, "--help", env={"COLUMNS": "120"})
    assert result.returncode == 0 and "<bool>" not in result.stdout
    assert "--json" in result.stdout and "--lang" in result.stdout
