"""``laizi dataset build --recipe NAME --out DIR [--workers K] [--limit-shards N]``,
``laizi dataset info DIR`` and ``laizi dataset recipes``: named, resumable self-play datasets.

A recipe (:mod:`laizi.dataset.recipes`) fixes the bots, presets, hands, seeds and encoding; the
build (:mod:`laizi.dataset.build`) writes its shards as Parquet with a manifest and, run again,
goes on where it stopped.  ``info`` checks a directory against its manifest: exit 4 when a file
does not match.  Bad input (an unknown recipe, a directory that can't be used) is exit 1.
"""

from __future__ import annotations

from typing import Any

import typer

from laizi.cli.common import EXIT_VERIFY_FAILED, LangOption, app, dumps, fail, lang_or_exit
from laizi.i18n import Lang, pick

__all__ = ["dataset_app"]

dataset_app = typer.Typer(
    name="dataset",
    help="Named self-play datasets: build a recipe's shards (resumable), check a build.",
    no_args_is_help=True,
)
app.add_typer(dataset_app, name="dataset")


def _modules(lang: Lang) -> Any:
    try:
        from laizi.dataset import build, recipes
    except ImportError as error:
        fail(
            pick(
                lang,
                f"数据集需要 numpy 和 pyarrow：pip install 'laizi[dataset]'（{error}）",
                f"datasets need numpy and pyarrow: pip install 'laizi[dataset]' ({error})",
            )
        )
    return build, recipes


@dataset_app.command("build")
def build_command(
    recipe: str = typer.Option(
        ..., "--recipe", metavar="NAME", help="The recipe (laizi dataset recipes lists them)."
    ),
    out: str = typer.Option(..., "--out", metavar="DIR", help="Directory to build (or finish)."),
    workers: int = typer.Option(
        1, "--workers", min=1, metavar="K", help="Shards played at once (processes)."
    ),
    limit_shards: int | None = typer.Option(
        None, "--limit-shards", min=1, metavar="N", help="Build only shards 0 … N-1."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    lang: str | None = LangOption,
) -> None:
    """Build a recipe's dataset under DIR; run again to resume (finished shards are kept)."""
    language = lang_or_exit(lang)
    build, recipes = _modules(language)
    try:
        chosen = recipes.find_recipe(recipe)
        report = build.build(
            chosen,
            out,
            workers=workers,
            limit_shards=limit_shards,
            progress=True,
            warn=lambda message: typer.echo(message, err=True),
        )
    except recipes.RecipeError as error:
        fail(pick(language, error.zh, error.en))
    if as_json:
        typer.echo(dumps(report))
        return
    typer.echo(
        pick(
            language,
            f"{report['recipe']} v{report['version']}：本次建了 {report['built']} 个分片"
            f"（跳过已完成的 {report['skipped']} 个，重建 {report['redone']} 个），"
            f"共完成 {report['shards_done']}/{report['shards_total']}；"
            f"{report['hands']} 局、{report['rows']} 行、{report['bytes']:,} 字节，"
            f"用时 {report['seconds']:.1f} 秒",
            f"{report['recipe']} v{report['version']}: built {report['built']} shard(s) "
            f"(skipped {report['skipped']} finished, redid {report['redone']}); "
            f"{report['shards_done']}/{report['shards_total']} done; {report['hands']} hands, "
            f"{report['rows']} rows, {report['bytes']:,} bytes; {report['seconds']:.1f} s",
        )
    )


@dataset_app.command("info")
def info_command(
    directory: str = typer.Argument(..., metavar="DIR", help="A laizi dataset build directory."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    lang: str | None = LangOption,
) -> None:
    """What a build directory holds, every shard checked against the manifest (exit 4 if not)."""
    language = lang_or_exit(lang)
    build, recipes = _modules(language)
    try:
        report = build.check(directory)
    except recipes.RecipeError as error:
        fail(pick(language, error.zh, error.en))
    if as_json:
        typer.echo(dumps(report))
    else:
        per_shard = report["seconds_per_shard"]
        timing = (
            ""
            if per_shard is None
            else pick(language, f"，每个分片 {per_shard:.0f} 秒", f", {per_shard:.0f} s a shard")
        )
        typer.echo(
            pick(
                language,
                f"{report['recipe']} v{report['version']}（编码 {report['encoder']}）："
                f"完成 {report['shards_done']}/{report['shards_total']} 个分片，"
                f"{report['hands']} 局、{report['rows']} 行、{report['bytes']:,} 字节{timing}",
                f"{report['recipe']} v{report['version']} (encoder {report['encoder']}): "
                f"{report['shards_done']}/{report['shards_total']} shards, {report['hands']} "
                f"hands, {report['rows']} rows, {report['bytes']:,} bytes{timing}",
            )
        )
        for problem in report["problems"]:
            typer.echo(pick(language, f"不符：{problem}", f"mismatch: {problem}"))
        typer.echo(
            pick(language, "与清单一致", "matches the manifest")
            if report["ok"]
            else pick(
                language,
                "与清单不符：再运行 laizi dataset build 会重建这些分片",
                "does not match the manifest: laizi dataset build again rebuilds those shards",
            )
        )
    if not report["ok"]:
        raise typer.Exit(EXIT_VERIFY_FAILED)


@dataset_app.command("recipes")
def recipes_command(
    as_json: bool = typer.Option(False, "--json", help="Print the recipes as JSON."),
    lang: str | None = LangOption,
) -> None:
    """The recipes that can be built: bots, presets and shares, hands, shards, encoder."""
    language = lang_or_exit(lang)
    _, recipes = _modules(language)
    listed = [r.to_json() for r in recipes.RECIPES.values()]
    if as_json:
        typer.echo(dumps(listed))
        return
    for recipe in recipes.RECIPES.values():
        shares = ", ".join(f"{p} {float(s):.0%}" for p, s in recipe.shares().items())
        typer.echo(
            pick(
                language,
                f"{recipe.name} v{recipe.version}：{recipe.hands} 局 = {recipe.shards} 个分片 × "
                f"{recipe.shard_hands} 局；{','.join(recipe.bots)}；"
                f"编码 {recipe.encoder}；{shares}",
                f"{recipe.name} v{recipe.version}: {recipe.hands} hands = {recipe.shards} shards "
                f"× {recipe.shard_hands}; {','.join(recipe.bots)}; encoder {recipe.encoder}; "
                f"{shares}",
            )
        )
