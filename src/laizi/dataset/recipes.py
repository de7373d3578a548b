"""Named dataset recipes (``laizi dataset build --recipe NAME``; ``docs/dataset.md``, "Recipes").

A recipe is a frozen description of a self-play dataset — which bots, which presets in which
share, how many hands, the seeds, the shard size and the encoding — so that a paper can name it
(``expert-selfplay-v1``) and anyone can rebuild the same bytes.  Shard ``i`` is one preset
(``recipe.cycle[i % len(cycle)]``) and one run seed derived from the recipe's name and ``i``
(:func:`shard_seed`); its hand ``j`` is exactly hand ``j`` of ``laizi simulate --bots … --rules
PRESET --hands SHARD_HANDS --seed SEED`` (the same wall, dealer and bot seeds), so a shard can be
checked against a plain self-play run.

>>> recipe = find_recipe("expert-selfplay-v1")
>>> recipe.hands, recipe.shards, recipe.shard_hands
(20000, 80, 250)
>>> recipe.preset(0), recipe.preset(1), recipe.preset(10)
('wuhan-hongzhong-kaikou', 'baishan', 'wuhan-hongzhong-kaikou')
>>> recipe.shares()["baishan"], recipe.shares()["wuhan-hongzhong-kaikou"]
(Fraction(3, 10), Fraction(1, 5))
>>> shard_seed("expert-selfplay-v1", 0) == shard_seed("expert-selfplay-v1", 0) < 2**63
True
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from laizi.env.encoders import ENCODERS
from laizi.rules.settings import PRESETS

__all__ = ["RECIPES", "Recipe", "RecipeError", "find_recipe", "register_recipe", "shard_seed"]


class RecipeError(ValueError):
    """Bad input to a recipe build (an unknown recipe, a directory that can't be used …), in
    both languages: ``str()`` is the English text, :attr:`zh` the Chinese."""

    def __init__(self, zh: str, en: str) -> None:
        super().__init__(en)
        self.zh = zh
        self.en = en


def shard_seed(name: str, index: int) -> int:
    """The run seed of shard ``index`` of recipe ``name``: SHA-256 of both, 63 bits (a
    ``laizi simulate --seed``)."""
    digest = hashlib.sha256(f"laizi-dataset:{name}:shard:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class Recipe:
    """A self-play dataset, fully described: rebuilt from it, the shards are the same bytes."""

    name: str
    version: int
    about: str
    """One line, for ``laizi dataset info`` and the manifest."""
    bots: tuple[str, str, str, str]
    """The bot of each seat (names as ``laizi simulate --bots`` takes them)."""
    cycle: tuple[str, ...]
    """The preset of shard ``i`` is ``cycle[i % len(cycle)]``: the shares of the presets, and
    every ``len(cycle)`` consecutive shards hold the whole mix."""
    shards: int
    shard_hands: int
    encoder: str = "v1"
    """The observation encoder of the Parquet rows (``laizi export --encoder``)."""

    def __post_init__(self) -> None:
        unknown = [p for p in self.cycle if p not in PRESETS]
        if unknown or not self.cycle:
            raise ValueError(f"recipe {self.name}: unknown presets {unknown or '(none)'}")
        if self.encoder not in ENCODERS:
            raise ValueError(f"recipe {self.name}: unknown encoder {self.encoder!r}")
        if self.shards < 1 or self.shard_hands < 1 or self.version < 1:
            raise ValueError(f"recipe {self.name}: shards, shard_hands and version must be ≥ 1")

    @property
    def hands(self) -> int:
        return self.shards * self.shard_hands

    def preset(self, index: int) -> str:
        """The preset every hand of shard ``index`` is played in."""
        return self.cycle[index % len(self.cycle)]

    def seed(self, index: int) -> int:
        """Shard ``index``'s run seed (:func:`shard_seed` of the recipe's name)."""
        return shard_seed(self.name, index)

    def shares(self) -> dict[str, Fraction]:
        """Each preset's share of the shards (and of the hands), over all of them."""
        counts = Counter(self.preset(i) for i in range(self.shards))
        return {p: Fraction(n, self.shards) for p, n in counts.items()}

    def to_json(self) -> dict[str, Any]:
        """The description as the manifest records it."""
        return {
            "name": self.name,
            "version": self.version,
            "about": self.about,
            "bots": list(self.bots),
            "cycle": list(self.cycle),
            "shards": self.shards,
            "shard_hands": self.shard_hands,
            "hands": self.hands,
            "encoder": self.encoder,
            "seeds": "shard i: laizi.dataset.recipes.shard_seed(name, i); hand j of a shard as "
            "laizi simulate --seed SEED plays hand j",
        }


RECIPES: dict[str, Recipe] = {}
"""The recipes by name."""


def register_recipe(recipe: Recipe) -> Recipe:
    """Make ``recipe`` buildable by name (a name is never redefined with other contents)."""
    known = RECIPES.get(recipe.name)
    if known is not None and known != recipe:
        raise ValueError(f"recipe {recipe.name!r} is registered already with other contents")
    RECIPES[recipe.name] = recipe
    return recipe


def find_recipe(name: str) -> Recipe:
    """The recipe called ``name``, or RecipeError listing the known ones."""
    recipe = RECIPES.get(name)
    if recipe is None:
        known = ", ".join(sorted(RECIPES))
        raise RecipeError(
            f"未知的数据集配方 {name!r}；已有：{known}", f"unknown recipe {name!r}; known: {known}"
        )
    return recipe


EXPERT = "expert-blind@200"
"""``expert`` at its default budget when the recipe was made, and without the learned policy it
gained later (``expert-blind``): named so that a later default does not change the data."""

register_recipe(
    Recipe(
        name="expert-selfplay-v1",
        version=1,
        about="expert self-play, all seven presets (Baishan 30%, Wuhan 红中 开口翻 20%, the five "
        "other Wuhan presets 10% each), encoder v2",
        bots=(EXPERT, EXPERT, EXPERT, EXPERT),
        cycle=(
            "wuhan-hongzhong-kaikou",
            "baishan",
            "wuhan-hongzhong-koukou",
            "wuhan-facai-kaikou",
            "baishan",
            "wuhan-hongzhong-kaikou",
            "wuhan-facai-koukou",
            "baishan",
            "wuhan-qipi-kaikou",
            "wuhan-qipi-koukou",
        ),
        shards=80,
        shard_hands=250,
        encoder="v2",
    )
)

register_recipe(
    Recipe(
        name="expert-selfplay-smoke",
        version=1,
        about="a minute's taste of expert-selfplay-v1: the same bots, one shard of each preset, "
        "2 hands a shard",
        bots=(EXPERT, EXPERT, EXPERT, EXPERT),
        cycle=(
            "wuhan-hongzhong-kaikou",
            "baishan",
            "wuhan-hongzhong-koukou",
            "wuhan-facai-kaikou",
            "wuhan-facai-koukou",
            "wuhan-qipi-kaikou",
            "wuhan-qipi-koukou",
        ),
        shards=7,
        shard_hands=2,
        encoder="v2",
    )
)
