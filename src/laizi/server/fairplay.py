"""The collusion watch (伙牌): for every pair of accounts that played together, how they treated
each other against how each treats everybody else — a score with its statistical basis and the
evidence behind it (docs/fairplay.md).  It only reports: nothing here bans, warns or changes an
account.

What is read: every finished hand of every room with at least two seats linked to accounts (the
``seat_accounts`` table; a seat a bot played is no account's), from the stored records, each event
decoded to its typed Struct (:mod:`laizi.engine.events`) and the hand replayed with the engine
(:func:`laizi.engine.record.deal_record`, :func:`laizi.engine.apply`), so whether a ``pass`` gave
up a legal win is recomputed by the rules, not guessed.  Only ranked rooms count (``rooms.kind``,
issue 26 item 3: friends choose their table in a friendly room, so pairs there prove nothing);
``all_rooms`` reads friendly and casual rooms too, and the report says which (``ranked_filter``).

The signals, each for one direction of a pair (``from`` helps ``to``), each tested against the
helper's own behaviour towards everybody else (its base rate with the partner left out, shrunk
towards the whole population's rate by a few pseudo-observations so that a thin history does not
make a tiny rate):

* ``deal_ins`` — ``from``'s discards that ``to`` won on.  Null: each of ``from``'s discards in the
  hands they shared deals in to ``to`` at ``from``'s rate per discard and opponent against other
  opponents; the count is compared with a Poisson law of that mean (upper tail).
* ``passed_wins`` — ``from`` was offered a win on ``to``'s discard (or added kong) and declined
  it (a ``pass``, or another claim).  Null: binomial, ``from``'s share of declined wins on the
  other seats' discards (upper tail).
* ``claims`` — ``to`` chowed, punged or konged ``from``'s discards.  Null: Poisson, ``to``'s
  claims per discard of the other seats, apart for its previous seat (the only one it may chow
  from) and the others (upper tail).
* ``points`` — what flowed from one to the other in the hands they shared, less what their edges
  against everybody else predict.  Under the null the per-hand residuals are symmetric, and the
  self-normalised sum ``z = Σy / √Σy²`` obeys ``P(|z| ≥ t) ≤ 2·exp(−t²/2)`` whatever their law
  (Efron 1969): that bound is the p-value.

A pair's **score** is ``−log10`` of the smallest of its seven p-values times seven (Bonferroni:
valid however the signals depend on each other).  A pair is **flagged** when it played at least
``min_matches`` matches together and its score reaches ``threshold`` (default 6: with a thousand
honest pairs, about one in a thousand runs flags one of them by chance).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import msgspec
from sqlalchemy import Engine, inspect, select

from laizi.engine.actions import WIN
from laizi.engine.events import (
    AddedKong,
    AnyEvent,
    Chow,
    Discard,
    End,
    Kong,
    Pung,
    Win,
    decode,
    encode_all,
)
from laizi.engine.game import apply
from laizi.engine.record import RecordError, check_events, deal_record, next_decision
from laizi.engine.state import CLAIM, ROB
from laizi.i18n import Lang, pick
from laizi.server.accounts import accounts
from laizi.server.ratings import add_payments, no_payments, seat_accounts
from laizi.server.store import events, hands, rooms, seats

__all__ = [
    "DEFAULT_MIN_MATCHES",
    "DEFAULT_THRESHOLD",
    "SIGNALS",
    "FairplayReport",
    "HandFacts",
    "analyze",
    "hand_facts",
    "report_text",
]

DEFAULT_MIN_MATCHES = 10
"""Matches a pair must have played together before it may be flagged."""
DEFAULT_THRESHOLD = 6.0
"""The score (−log10 of the pair's corrected p-value) at which a pair is flagged."""
SIGNALS = ("deal_ins", "passed_wins", "claims", "points")
TESTS = 7
"""The p-values behind a score: three signals in each direction and the points."""
PRIOR_DISCARDS = 200.0
"""Pseudo-observations (discard × opponent) pulling a deal-in or claim rate to the population's."""
PRIOR_OFFERS = 20.0
"""Pseudo-observations (wins offered) pulling a pass rate to the population's."""
EVIDENCE_PER_SIGNAL = 30
"""Evidence items kept per signal and direction (the counts are always whole)."""


# -- one hand ---------------------------------------------------------------------------------
@dataclass
class HandFacts:
    """What one hand tells about how its seats treated each other (seats, not accounts)."""

    discards: list[int] = field(default_factory=lambda: [0] * 4)
    deal_ins: list[tuple[int, int, int, str]] = field(default_factory=list)
    """(discarder, winner, event index, tile)."""
    offers: list[tuple[int, int, int, str, bool]] = field(default_factory=list)
    """(offered seat, discarder, index of its decision, tile, declined)."""
    claims: list[tuple[int, int, int, str, str]] = field(default_factory=list)
    """(claimer, discarder, event index, kind, tile)."""
    paid: list[list[float]] = field(default_factory=lambda: [[0.0] * 4 for _ in range(4)])
    """``paid[i][j]``: what seat i paid seat j in the hand."""


def hand_facts(record: list[dict[str, Any]]) -> HandFacts:
    """Replay one finished hand's record and collect its facts (RecordError if it does not
    replay: a hand the watch cannot read is reported, not guessed at)."""
    typed: list[AnyEvent] = []
    for index, line in enumerate(record):
        try:
            typed.append(decode(line))
        except msgspec.ValidationError as error:
            raise RecordError(index, f"not an event: {error}") from None
    facts = HandFacts()
    state, produced = deal_record(record)
    index = len(produced)
    while not state.over:
        action = next_decision(state, record, index)
        if state.phase in (CLAIM, ROB) and state.claim_tile is not None:
            options = state.options.get(action.seat, [])
            if any(a.type == WIN for a in options) and state.claim_from is not None:
                tile = _tile_at(typed, index)
                facts.offers.append(
                    (action.seat, state.claim_from, index, tile, action.type != WIN)
                )
        try:
            new = encode_all(apply(state, action))
        except Exception as error:  # IllegalAction: the record is not a legal game
            raise RecordError(index, f"illegal: {error}") from None
        check_events(new, record, index)
        index += len(new)
    if index < len(record):
        raise RecordError(index, "events after the end of the hand")
    for index, event in enumerate(typed):
        if isinstance(event, Discard) and not event.lay_out:
            facts.discards[event.seat] += 1
        elif isinstance(event, Win) and event.from_ is not None:
            facts.deal_ins.append((event.from_, event.seat, index, event.tile))
        elif isinstance(event, Chow | Pung | Kong):
            facts.claims.append((event.seat, event.from_, index, _CLAIMED[type(event)], event.tile))
        elif isinstance(event, End):
            # who paid whom: the booking's split (laizi.server.ratings.add_payments); a kong
            # paid on the spot is split with the hand's other payments, as its End gives them
            paid = no_payments()
            add_payments(paid, event.exact_payments())
            facts.paid = [[float(x) for x in row] for row in paid]
    return facts


_CLAIMED: dict[type, str] = {Chow: "chow", Pung: "pung", Kong: "kong"}


def _tile_at(typed: list[AnyEvent], index: int) -> str:
    """The tile on the table at a claim decision: the last discard or added kong before it."""
    for event in reversed(typed[:index]):
        if isinstance(event, Discard | AddedKong):
            return event.tile
    return "?"


# -- the database -----------------------------------------------------------------------------
@dataclass(frozen=True)
class _Room:
    id: int
    code: str
    owners: dict[int, int]
    """Seat → account id."""


def _has_kind(engine: Engine) -> bool:
    return any(c["name"] == "kind" for c in inspect(engine).get_columns("rooms"))


def _rooms(engine: Engine, all_rooms: bool) -> tuple[list[_Room], str]:
    """The rooms with two or more account seats (in id order): the ranked ones, or with
    ``all_rooms`` friendly and casual rooms too; and which filter applied."""
    query = select(rooms.c.id, rooms.c.code)
    note = "all rooms with account seats"
    if not all_rooms:
        if not _has_kind(engine):
            raise ValueError(
                "the database predates ranked rooms (no rooms.kind): start `laizi serve` on it "
                "once to upgrade it, or pass --all-rooms"
            )
        query = query.where(rooms.c.kind == "ranked")
        note = "ranked rooms"
    with engine.connect() as c:
        codes = {row[0]: row[1] for row in c.execute(query)}
        owners: dict[int, dict[int, int]] = defaultdict(dict)
        for room_id, seat, account, kind in c.execute(
            select(
                seat_accounts.c.room_id,
                seat_accounts.c.seat,
                seat_accounts.c.account_id,
                seats.c.kind,
            ).outerjoin(
                seats,
                (seats.c.room_id == seat_accounts.c.room_id)
                & (seats.c.seat == seat_accounts.c.seat),
            )
        ).all():
            if kind != "bot" and 0 <= seat <= 3 and room_id in codes:
                owners[room_id][seat] = account
    found = [_Room(r, codes[r], owners[r]) for r in sorted(owners) if len(owners[r]) >= 2]
    return found, note


def _records(engine: Engine, room_id: int) -> list[tuple[int, list[dict[str, Any]]]]:
    """A room's finished hands: (number, record), in order."""
    with engine.connect() as c:
        rows = c.execute(
            select(hands.c.id, hands.c.number)
            .where((hands.c.room_id == room_id) & hands.c.finished)
            .order_by(hands.c.number)
        ).all()
        out = []
        for hand_id, number in rows:
            bodies = c.execute(
                select(events.c.body).where(events.c.hand_id == hand_id).order_by(events.c.idx)
            ).scalars()
            out.append((number, [json.loads(b) for b in bodies]))
    return out


def _names(engine: Engine) -> dict[int, str]:
    with engine.connect() as c:
        return {row[0]: row[1] for row in c.execute(select(accounts.c.id, accounts.c.name))}


# -- the tallies ------------------------------------------------------------------------------
@dataclass
class _Account:
    """One account's behaviour towards every opponent (the base rates)."""

    hands: int = 0
    discard_opponents: float = 0.0
    """Σ over its discards of the opponents at the table (3 each)."""
    deal_ins: int = 0
    offers: int = 0
    declined: int = 0
    seen_prev: int = 0
    """Discards of its previous seat (the only one it may chow from)."""
    seen_other: int = 0
    claims_prev: int = 0
    claims_other: int = 0
    net: float = 0.0
    """Σ over hands and opponents of what the opponent paid it minus what it paid."""
    net_count: int = 0


@dataclass
class _Direction:
    """How ``a`` treated ``b`` in the hands they shared."""

    discards: int = 0
    deal_ins: list[dict[str, Any]] = field(default_factory=list)
    offers: int = 0
    declined: list[dict[str, Any]] = field(default_factory=list)
    discards_as_prev: int = 0
    """``a``'s discards while ``a`` sat just before ``b`` (``b`` may chow them)."""
    discards_as_other: int = 0
    claims: list[dict[str, Any]] = field(default_factory=list)
    net: float = 0.0
    """What ``b`` paid ``a`` minus what ``a`` paid ``b``, over the shared hands."""


@dataclass
class _Pair:
    rooms: set[str] = field(default_factory=set)
    hands: int = 0
    ways: dict[int, _Direction] = field(default_factory=dict)
    """Keyed by the account that gives (``from``)."""
    flows: list[float] = field(default_factory=list)
    """Per shared hand: what the lower account id paid the higher, net."""


def _item(room: str, hand: int, event: int, **more: Any) -> dict[str, Any]:
    return {"room": room, "hand": hand, "event": event, **more}


@dataclass
class FairplayReport:
    """What :func:`analyze` found.  :meth:`to_json` is docs/fairplay.md's object."""

    rooms: int
    hands: int
    unreadable: list[dict[str, Any]]
    ranked_filter: str
    min_matches: int
    threshold: float
    considered: int
    pairs: list[dict[str, Any]]
    """Every considered pair (≥ ``min_matches`` together), highest score first."""

    @property
    def flagged(self) -> list[dict[str, Any]]:
        return [p for p in self.pairs if p["flagged"]]

    def to_json(self) -> dict[str, Any]:
        return {
            "rooms": self.rooms,
            "hands": self.hands,
            "unreadable_hands": self.unreadable,
            "ranked_filter": self.ranked_filter,
            "min_matches": self.min_matches,
            "threshold": self.threshold,
            "pairs_considered": self.considered,
            "flagged": self.flagged,
        }


def analyze(
    engine: Engine,
    min_matches: int = DEFAULT_MIN_MATCHES,
    threshold: float = DEFAULT_THRESHOLD,
    all_rooms: bool = False,
) -> FairplayReport:
    """Read every room with account seats and score every pair of accounts (the module's
    notes); nothing is written."""
    found, note = _rooms(engine, all_rooms)
    names = _names(engine)
    people: dict[int, _Account] = defaultdict(_Account)
    pairs: dict[tuple[int, int], _Pair] = defaultdict(_Pair)
    unreadable: list[dict[str, Any]] = []
    total = 0
    for room in found:
        for number, record in _records(engine, room.id):
            try:
                facts = hand_facts(record)
            except (RecordError, ValueError, TypeError, KeyError) as error:
                unreadable.append({"room": room.code, "hand": number, "error": str(error)[:200]})
                continue
            total += 1
            _tally(room, number, facts, people, pairs)
    whole = _Account(
        deal_ins=sum(x.deal_ins for x in people.values()),
        discard_opponents=sum(x.discard_opponents for x in people.values()),
        offers=sum(x.offers for x in people.values()),
        declined=sum(x.declined for x in people.values()),
        seen_prev=sum(x.seen_prev for x in people.values()),
        seen_other=sum(x.seen_other for x in people.values()),
        claims_prev=sum(x.claims_prev for x in people.values()),
        claims_other=sum(x.claims_other for x in people.values()),
    )
    pair_rows = [
        _score(a, b, pair, people, whole, names)
        for (a, b), pair in pairs.items()
        if len(pair.rooms) >= min_matches
    ]
    for row in pair_rows:
        row["flagged"] = row["score"] >= threshold
    pair_rows.sort(key=lambda r: (-r["score"], r["accounts"]))
    return FairplayReport(
        len(found), total, unreadable, note, min_matches, threshold, len(pair_rows), pair_rows
    )


def _tally(
    room: _Room,
    number: int,
    facts: HandFacts,
    people: dict[int, _Account],
    pairs: dict[tuple[int, int], _Pair],
) -> None:
    owners = room.owners
    for seat, account in owners.items():
        me = people[account]
        me.hands += 1
        me.discard_opponents += 3 * facts.discards[seat]
        prev = (seat + 3) % 4
        me.seen_prev += facts.discards[prev]
        me.seen_other += sum(facts.discards[s] for s in range(4) if s not in (seat, prev))
        for other in range(4):
            if other != seat:
                me.net += facts.paid[other][seat] - facts.paid[seat][other]
                me.net_count += 1
    for source, _, _, _ in facts.deal_ins:
        if source in owners:
            people[owners[source]].deal_ins += 1
    for seat, _, _, _, declined in facts.offers:
        if seat in owners:
            people[owners[seat]].offers += 1
            people[owners[seat]].declined += declined
    for claimer, source, _, _, _ in facts.claims:
        if claimer in owners:
            if source == (claimer + 3) % 4:
                people[owners[claimer]].claims_prev += 1
            else:
                people[owners[claimer]].claims_other += 1
    seated = sorted(owners.items())
    for i, (seat_a, a) in enumerate(seated):
        for seat_b, b in seated[i + 1 :]:
            if a == b:
                continue
            lo, hi = (seat_a, seat_b) if a < b else (seat_b, seat_a)
            pair = pairs[(min(a, b), max(a, b))]
            pair.rooms.add(room.code)
            pair.hands += 1
            pair.flows.append(facts.paid[lo][hi] - facts.paid[hi][lo])
            for giver, taker in ((seat_a, seat_b), (seat_b, seat_a)):
                way = pair.ways.setdefault(owners[giver], _Direction())
                way.discards += facts.discards[giver]
                if taker == (giver + 1) % 4:
                    way.discards_as_prev += facts.discards[giver]
                else:
                    way.discards_as_other += facts.discards[giver]
                way.net += facts.paid[taker][giver] - facts.paid[giver][taker]
            for source, winner, index, tile in facts.deal_ins:
                if {source, winner} == {seat_a, seat_b}:
                    pair.ways[owners[source]].deal_ins.append(
                        _item(room.code, number, index, tile=tile)
                    )
            for seat, source, index, tile, declined in facts.offers:
                if {seat, source} == {seat_a, seat_b}:
                    way = pair.ways[owners[seat]]
                    way.offers += 1
                    if declined:
                        way.declined.append(_item(room.code, number, index, tile=tile))
            for claimer, source, index, kind, tile in facts.claims:
                if {claimer, source} == {seat_a, seat_b}:
                    prev = source == (claimer + 3) % 4
                    pair.ways[owners[source]].claims.append(
                        _item(room.code, number, index, claim=kind, tile=tile, previous_seat=prev)
                    )


# -- the statistics ---------------------------------------------------------------------------
def poisson_tail(k: int, mean: float) -> float:
    """P(X ≥ k) for X ~ Poisson(mean).

    >>> round(poisson_tail(3, 1.0), 6)
    0.080301
    >>> poisson_tail(0, 2.0)
    1.0
    """
    if k <= 0:
        return 1.0
    if mean <= 0:
        return 0.0
    # 1 − P(X ≤ k−1), summed in logs from the largest term down for accuracy in the far tail
    terms = [-mean + j * math.log(mean) - math.lgamma(j + 1) for j in range(k, k + 400)]
    top = max(terms)
    tail = math.exp(top) * sum(math.exp(t - top) for t in terms)
    return min(1.0, tail)


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p).

    >>> round(binomial_tail(2, 3, 0.5), 6)
    0.5
    """
    if k <= 0:
        return 1.0
    if k > n or p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    logs = [
        math.lgamma(n + 1)
        - math.lgamma(j + 1)
        - math.lgamma(n - j + 1)
        + j * math.log(p)
        + (n - j) * math.log1p(-p)
        for j in range(k, n + 1)
    ]
    top = max(logs)
    return min(1.0, math.exp(top) * sum(math.exp(x - top) for x in logs))


def _shrunk(count: float, trials: float, prior_rate: float, weight: float) -> float:
    return (count + weight * prior_rate) / (trials + weight)


def _laplace(count: float, trials: float) -> float:
    """The population's rate by the rule of succession, ``(count + 1) / (trials + 2)``: never 0,
    so that no single event is "impossible" (a rate of 0 would make any p-value 0).

    >>> _laplace(0, 0), _laplace(3, 98)
    (0.5, 0.04)
    """
    return (count + 1) / (max(trials, 0.0) + 2)


def _surprise(p: float) -> float:
    return round(-math.log10(max(p, 1e-300)), 2) + 0.0  # + 0.0: never "-0.0"


def _signal(
    kind: str, giver: str, taker: str, observed: float, expected: float, p: float
) -> dict[str, Any]:
    return {
        "signal": kind,
        "from": giver,
        "to": taker,
        "observed": round(observed, 2) if isinstance(observed, float) else observed,
        "expected": round(expected, 3),
        "p": float(f"{p:.3g}"),
        "surprise": _surprise(p),
    }


def _score(
    a: int,
    b: int,
    pair: _Pair,
    people: dict[int, _Account],
    whole: _Account,
    names: dict[int, str],
) -> dict[str, Any]:
    # The population's rates, this pair's dealings with each other left out (in a small
    # population they would otherwise raise the very rates they are compared with).
    ab, ba = pair.ways.get(a, _Direction()), pair.ways.get(b, _Direction())
    deal_rate = _laplace(
        whole.deal_ins - len(ab.deal_ins) - len(ba.deal_ins),
        whole.discard_opponents - ab.discards - ba.discards,
    )
    pass_rate = _laplace(
        whole.declined - len(ab.declined) - len(ba.declined), whole.offers - ab.offers - ba.offers
    )
    prev_rate = _laplace(
        whole.claims_prev - _claims_as(ab, True) - _claims_as(ba, True),
        whole.seen_prev - ab.discards_as_prev - ba.discards_as_prev,
    )
    other_rate = _laplace(
        whole.claims_other - _claims_as(ab, False) - _claims_as(ba, False),
        whole.seen_other - ab.discards_as_other - ba.discards_as_other,
    )
    signals: list[dict[str, Any]] = []
    evidence: list[dict[str, Any]] = []
    for giver, taker in ((a, b), (b, a)):
        way = pair.ways.get(giver, _Direction())
        g, t = people[giver], people[taker]
        gname, tname = names.get(giver, str(giver)), names.get(taker, str(taker))
        # deal-ins: the giver's rate per discard and opponent, the taker left out
        rate = _shrunk(
            g.deal_ins - len(way.deal_ins),
            g.discard_opponents - way.discards,
            deal_rate,
            PRIOR_DISCARDS,
        )
        k = len(way.deal_ins)
        signals.append(
            _signal(
                "deal_ins",
                gname,
                tname,
                k,
                way.discards * rate,
                poisson_tail(k, way.discards * rate),
            )
        )
        # wins declined on the taker's discards: the giver's share on other seats' discards
        p = _shrunk(g.declined - len(way.declined), g.offers - way.offers, pass_rate, PRIOR_OFFERS)
        k = len(way.declined)
        signals.append(
            _signal("passed_wins", gname, tname, k, way.offers * p, binomial_tail(k, way.offers, p))
        )
        # the taker's claims of the giver's discards
        p_prev = _shrunk(
            t.claims_prev - _claims_as(way, True),
            t.seen_prev - way.discards_as_prev,
            prev_rate,
            PRIOR_DISCARDS,
        )
        p_other = _shrunk(
            t.claims_other - _claims_as(way, False),
            t.seen_other - way.discards_as_other,
            other_rate,
            PRIOR_DISCARDS,
        )
        mean = way.discards_as_prev * p_prev + way.discards_as_other * p_other
        k = len(way.claims)
        signals.append(_signal("claims", gname, tname, k, mean, poisson_tail(k, mean)))
        for kind, items in (
            ("deal_in", way.deal_ins),
            ("passed_win", way.declined),
            ("claim", way.claims),
        ):
            evidence += [
                {"signal": kind, "from": gname, "to": tname, **item}
                for item in items[:EVIDENCE_PER_SIGNAL]
            ]
    # points: a's net gain from b per shared hand, less what their edges predict
    lo, hi = a, b
    edge = {}
    for who in (lo, hi):
        person = people[who]
        way = pair.ways.get(who, _Direction())
        count = person.net_count - pair.hands
        edge[who] = (person.net - way.net) / count if count > 0 else 0.0
    expected = edge[hi] - edge[lo]  # what lo should pay hi per hand
    residuals = [f - expected for f in pair.flows]
    square = sum(r * r for r in residuals)
    z = sum(residuals) / math.sqrt(square) if square > 0 else 0.0
    p_points = min(1.0, 2 * math.exp(-z * z / 2))
    giver, taker = (lo, hi) if z >= 0 else (hi, lo)
    signals.append(
        _signal(
            "points",
            names.get(giver, str(giver)),
            names.get(taker, str(taker)),
            abs(sum(pair.flows)),
            abs(expected * len(pair.flows)),
            p_points,
        )
        | {"z": round(abs(z), 3)}
    )
    smallest = min(s["p"] for s in signals)
    p_pair = min(1.0, TESTS * smallest)
    return {
        "accounts": sorted([names.get(a, str(a)), names.get(b, str(b))]),
        "matches": len(pair.rooms),
        "hands": pair.hands,
        "score": _surprise(p_pair),
        "p": float(f"{p_pair:.3g}"),
        "signals": signals,
        "evidence": evidence,
    }


def _claims_as(way: _Direction, prev: bool) -> int:
    """How many of the taker's claims of the giver's discards came from its previous seat."""
    return sum(1 for c in way.claims if c["previous_seat"] == prev)


# -- the readable report ----------------------------------------------------------------------
_SIGNAL_WORDS: dict[str, tuple[str, str]] = {
    "deal_ins": (
        "{from} 点炮给 {to} {observed} 次（预计 {expected}）",
        "{from} dealt in to {to} {observed} times (expected {expected})",
    ),
    "passed_wins": (
        "{from} 放过 {to} 打出的和牌 {observed} 次（预计 {expected}）",
        "{from} passed up {observed} wins on {to}'s discards (expected {expected})",
    ),
    "claims": (
        "{to} 吃碰杠 {from} 的牌 {observed} 次（预计 {expected}）",
        "{to} claimed {from}'s discards {observed} times (expected {expected})",
    ),
    "points": (
        "{from} 输给 {to} 的分数 {observed}（按两人对其他人的成绩预计 {expected}）",
        "{from} lost {observed} points to {to} (their results against others predict {expected})",
    ),
}
_EVIDENCE_WORDS: dict[str, tuple[str, str]] = {
    "deal_in": ("{from} 打出 {tile}，{to} 和牌", "{from} discarded {tile}, {to} won on it"),
    "passed_win": (
        "{from} 可以和 {to} 打出的 {tile}，却没有和",
        "{from} could win on {to}'s {tile} and did not",
    ),
    "claim": ("{to} {claim} {from} 打出的 {tile}", "{to} claimed ({claim}) {from}'s {tile}"),
}


def report_text(report: FairplayReport, lang: Lang) -> str:
    """The report for people, in Chinese or English: every flagged pair, its signals (the
    surprising ones first) and the hands and decisions behind them."""
    lines = [
        pick(
            lang,
            f"读取了 {report.rooms} 个房间的 {report.hands} 局"
            f"（{_filter_zh(report.ranked_filter)}）；"
            f"一起打过至少 {report.min_matches} 场的账号对：{report.considered}；"
            f"标记（分数 ≥ {report.threshold:g}）：{len(report.flagged)}",
            f"read {report.hands} hands of {report.rooms} rooms ({report.ranked_filter}); "
            f"pairs of accounts with at least {report.min_matches} matches together: "
            f"{report.considered}; flagged (score ≥ {report.threshold:g}): {len(report.flagged)}",
        )
    ]
    if report.unreadable:
        lines.append(
            pick(
                lang,
                f"有 {len(report.unreadable)} 局无法重放，未计入",
                f"{len(report.unreadable)} hand(s) could not be replayed and were left out",
            )
        )
    lines.append(
        pick(
            lang,
            "这只是报告，不会自动封号：请人工查看下面的牌局。",
            "This only reports; nobody is banned automatically: look at the hands below.",
        )
    )
    for pair in report.flagged:
        one, two = pair["accounts"]
        lines.append("")
        lines.append(
            pick(
                lang,
                f"{one} 与 {two}：一起打了 {pair['matches']} 场 {pair['hands']} 局，"
                f"分数 {pair['score']:g}（p ≈ {pair['p']:.3g}）",
                f"{one} & {two}: {pair['matches']} matches ({pair['hands']} hands) together, "
                f"score {pair['score']:g} (p ≈ {pair['p']:.3g})",
            )
        )
        for signal in sorted(pair["signals"], key=lambda s: -s["surprise"]):
            if signal["surprise"] < 1:
                continue
            zh, en = _SIGNAL_WORDS[signal["signal"]]
            text = pick(lang, zh, en).format(**signal)
            lines.append(f"  {text}  [p = {signal['p']:.3g}]")
        for item in pair["evidence"]:
            zh, en = _EVIDENCE_WORDS[item["signal"]]
            what = pick(lang, zh, en).format(**{"claim": "", **item})
            where = pick(
                lang,
                f"房间 {item['room']} 第 {item['hand']} 局 第 {item['event']} 个事件",
                f"room {item['room']} hand {item['hand']} event {item['event']}",
            )
            lines.append(f"    {where}{pick(lang, '：', ': ')}{what}")
    return "\n".join(lines)


def _filter_zh(note: str) -> str:
    if note == "ranked rooms":
        return "只看排位房间"
    if "no kind column" in note:
        return "所有有账号座位的房间（房间表还没有类型列）"
    return "所有有账号座位的房间"
