"""The collusion watch's simulation: a population of bot accounts playing ranked matches, some
pairs colluding, every match written to a real database through the server's own storage and
booking code (:class:`laizi.server.store.Store`, :func:`laizi.server.ratings.link_seat`,
:func:`laizi.server.ratings.book_stored`), so the watch reads exactly what a server writes.

The cheating lives here and only here: :class:`ColludingBot` is handed its partner's view (its
concealed hand), which no seat of the server ever gets; it is not registered as a bot name, so no
room can seat it.  It is the feeder of a pair (issue 26, item 4: "one feeds the other"):

* it **discards its partner's waits** — a tile the partner would win on whenever it holds one,
  else a tile the partner can pung (or chow, from the seat before it);
* it **passes up wins** on its partner's discards (and added kongs);
* otherwise it plays as ``strong``.  The partner is an ordinary ``strong`` bot that takes what it
  is fed.

Seating is a hook (``seater``): :func:`stand_in_seating` is a stand-in for the ranked queue — each
colluding pair queues together and is seated with two other accounts ``together`` times; clubs
of four honest friends do the same (the honest pairs that play together as often, the control
group); the rest are tables of four accounts drawn at random.  The real ranked queue plugs in
here: ``benchmarks/fairplay_queue.py`` (``bench_fairplay.py --seater queue``, the default).
"""

from __future__ import annotations

import os
import random
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from laizi.bots import StrongBot
from laizi.bots.table import SeatTable
from laizi.engine import apply, legal_actions, make_ruleset, view
from laizi.engine.actions import DISCARD, PASS, WIN, Action
from laizi.engine.events import encode_all
from laizi.engine.match import Match
from laizi.rules import Settings
from laizi.server.accounts import Accounts
from laizi.server.ratings import book_stored, link_seat
from laizi.server.store import Store
from laizi.server.table import TableSettings

__all__ = [
    "ColludingBot",
    "Population",
    "Seating",
    "make_population",
    "play_match",
    "stand_in_seating",
    "write_match",
]

RULES = "wuhan-hongzhong-kaikou"


class ColludingBot(StrongBot):
    """``strong`` that feeds its partner (see the module).  Call :meth:`see_partner` with the
    partner's seat and view before every :meth:`act`: only a harness can."""

    def __init__(self, rules: Any, seed: int = 0) -> None:
        super().__init__(rules, seed)
        self.partner: int | None = None
        self.partner_table: SeatTable | None = None

    def see_partner(self, seat: int, partner_view: dict[str, Any]) -> None:
        self.partner = seat
        self.partner_table = SeatTable(partner_view)

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        if len(legal) > 1 and self.partner is not None and self.partner_table is not None:
            table = SeatTable(view)
            passing = table.phase in ("claim", "rob") and table.claim_from == self.partner
            if passing and any(a.type == WIN for a in legal):
                return next(a for a in legal if a.type == PASS)
            if table.phase == "turn" and not any(a.type == WIN for a in legal):
                fed = self.feed(table, legal)
                if fed is not None:
                    return fed
        return super().act(view, legal)

    def feed(self, table: SeatTable, legal: Sequence[Action]) -> Action | None:
        """The discard that helps the partner most: a tile it wins on, else one it can claim."""
        partner = self.partner_table
        assert partner is not None
        kept = self.strategy.kept_out(table)
        discards = [a for a in legal if a.type == DISCARD and a.tile not in kept]
        if not discards:
            return None
        counts = partner.counts
        if sum(counts) % 3 == 1:
            waits = set(self.strategy.winning_kinds(partner, counts))
            for action in discards:
                if action.tile in waits:
                    return action
        chow_ok = self.partner == (table.seat + 1) % 4
        for action in discards:
            tile = action.tile
            assert tile is not None
            if counts[tile] >= 2 and tile not in partner.must_gang and tile != partner.laizi:
                return action
            if chow_ok and _chowable(counts, tile, partner):
                return action
        return None


def _chowable(counts: list[int], tile: int, partner: SeatTable) -> bool:
    if tile >= 27:
        return False
    rank = tile % 9
    special = partner.must_gang | ({partner.laizi} if partner.laizi is not None else set())
    for low in (tile - 2, tile - 1, tile):
        if low < tile - rank or low + 2 > tile - rank + 8:
            continue
        others = [t for t in (low, low + 1, low + 2) if t != tile]
        if all(counts[t] and t not in special for t in others):
            return True
    return False


# -- the population --------------------------------------------------------------------------
@dataclass
class Population:
    """Account names; ``pairs`` are (feeder, partner) indices; ``clubs`` honest friends."""

    names: list[str]
    pairs: list[tuple[int, int]]
    clubs: list[list[int]]
    ids: list[int] = field(default_factory=list)
    """Account ids, once registered (index → id)."""


def make_population(size: int, colluding_pairs: int, clubs: int, seed: int) -> Population:
    """``size`` accounts: the first ``2 * colluding_pairs`` in pairs, the next ``4 * clubs`` in
    clubs of four, the rest on their own."""
    if 2 * colluding_pairs + 4 * clubs > size:
        raise ValueError("the population is too small for its pairs and clubs")
    names = [f"p{seed % 1000:03d}-{i:04d}" for i in range(size)]
    pairs = [(2 * i, 2 * i + 1) for i in range(colluding_pairs)]
    start = 2 * colluding_pairs
    club_list = [list(range(start + 4 * c, start + 4 * c + 4)) for c in range(clubs)]
    return Population(names, pairs, club_list)


@dataclass(frozen=True)
class Seating:
    """One match's table: account indices by seat, and which seats feed which (feeder → partner
    seat)."""

    seats: tuple[int, int, int, int]
    feeds: dict[int, int]


Seater = Callable[[Population, random.Random], Iterator[Seating]]
"""The seating hook: yields every match's table (the ranked queue, or a stand-in)."""


def stand_in_seating(together: int, random_tables: int) -> Seater:
    """A stand-in for the queue (see the module): every colluding pair and every club seated
    ``together`` times, plus ``random_tables`` tables of four drawn at random; in random order."""

    def seat(population: Population, rng: random.Random) -> Iterator[Seating]:
        size = len(population.names)
        in_pairs = {i for pair in population.pairs for i in pair}
        loners = [i for i in range(size) if i not in in_pairs]
        plan: list[list[int]] = []
        for feeder, partner in population.pairs:
            for _ in range(together):
                plan.append([feeder, partner, *rng.sample(loners, 2)])
        for club in population.clubs:
            plan += [list(club) for _ in range(together)]
        plan += [rng.sample(range(size), 4) for _ in range(random_tables)]
        rng.shuffle(plan)
        feeders = dict(population.pairs)
        for table in plan:
            rng.shuffle(table)
            feeds = {
                s: table.index(feeders[a])
                for s, a in enumerate(table)
                if a in feeders and feeders[a] in table
            }
            yield Seating((table[0], table[1], table[2], table[3]), feeds)

    return seat


# -- playing and writing ---------------------------------------------------------------------
def play_match(
    seating: Seating, hands: int, seed: int, rules: str = RULES
) -> list[list[dict[str, Any]]]:
    """Play one match of ``hands`` hands; every hand's record (start to end)."""
    ruleset = make_ruleset(rules)
    bots: list[StrongBot] = []
    for seat in range(4):
        cls = ColludingBot if seat in seating.feeds else StrongBot
        bots.append(cls(ruleset.settings, seed * 4 + seat))
    match = Match(ruleset)
    rng = random.Random(seed)
    records = []
    for _ in range(hands):
        state, record = match.deal(rng.randbytes(32))
        while not state.over:
            seat = state.to_act()[0]
            legal = legal_actions(state, seat)
            bot = bots[seat]
            if isinstance(bot, ColludingBot):
                partner = seating.feeds[seat]
                bot.see_partner(partner, view(state, partner))
            action = bot.act(view(state, seat), legal) if len(legal) > 1 else legal[0]
            record += encode_all(apply(state, action))
        match.finish(record)
        records.append(record)
        if match.over:
            break
    return records


def register_population(store: Store, population: Population) -> None:
    """Register every account (a cheap password hash: these accounts never log in)."""
    from argon2 import PasswordHasher

    service = Accounts(
        store.engine, hasher=PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
    )
    population.ids = []
    for i, name in enumerate(population.names):
        # one address each: the registration limit per address is not what is measured here
        population.ids.append(service.register(name, "fairplay-bench", f"10.{i}").id)


def write_match(
    store: Store,
    population: Population,
    seating: Seating,
    records: list[list[dict[str, Any]]],
    code: str,
    rules: str = RULES,
) -> list[dict[str, Any]]:
    """Store a played ranked match as a server does — the room, its seats linked to the
    accounts, each hand started then its events appended and committed, the room over — and
    book it."""
    settings = Settings.from_json(rules)
    table = TableSettings(players=4, hands=len(records)).to_json()
    room = store.create_room(code, settings.to_json(), table, kind="ranked")
    for seat, index in enumerate(seating.seats):
        store.set_seat(room, seat, "human", population.names[index], secrets.token_hex(8))
        link_seat(store.engine, room, seat, population.ids[index])
    store.set_status(room, "playing")
    for number, record in enumerate(records):
        seed = bytes.fromhex(record[-1].get("seed") or "00" * 32)  # a scripted hand has none
        hand_id = store.start_hand(room, number, record[0]["dealer"], seed, record[:2])
        last = number == len(records) - 1
        store.append(hand_id, 2, record[2:], True, (room, "over") if last else None)
        store.commit()
    return book_stored(store.engine, room, settings)


def worker_count() -> int:
    return max(1, min(2, os.cpu_count() or 1))
