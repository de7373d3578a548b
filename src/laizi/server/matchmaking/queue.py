"""The matchmaker: queues per (preset, kind, tier), tables formed on each tick, the accept phase.

Pure and deterministic: no clock (``now`` is passed in, in seconds), no I/O, no asyncio; the
only randomness is the ``random.Random`` given to :meth:`Matchmaker.tick` (the seats), so a
fixed seed and a fixed clock give the same tables.  The server drives it: it calls
:meth:`Matchmaker.enqueue` / :meth:`~Matchmaker.dequeue` / :meth:`~Matchmaker.accept` on the
players' messages, :meth:`~Matchmaker.disconnect` / :meth:`~Matchmaker.reconnect` on their
connections, and :meth:`~Matchmaker.tick` about once a second; it makes the room of each match
:meth:`~Matchmaker.accept` confirms.

>>> from random import Random
>>> mm = Matchmaker(presets=["baishan"])
>>> for i in range(4):
...     _ = mm.enqueue(Person(f"p{i}", account=i, rating=i / 2), "baishan", "ranked", now=0.0)
>>> [m.id for m in mm.tick(1.0, Random(7)).matches]
['m1']
>>> [mm.accept(f"p{i}", "m1", now=2.0) is not None for i in range(4)]
[False, False, False, True]
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from random import Random
from typing import Any, NamedTuple, Protocol

from laizi.server.matchmaking.settings import KINDS, MatchSettings
from laizi.server.matchmaking.tiers import Tier, allowed, find_tier, tier_of
from laizi.server.protocol import ProtocolError

__all__ = [
    "Bucket",
    "History",
    "Lapsed",
    "Match",
    "Matchmaker",
    "NoHistory",
    "Person",
    "RecentTables",
    "Status",
    "Tick",
    "person_data",
    "person_of",
]

SEATS = 4
_RECENT_WAITS = 20
"""How many of a queue's latest waits its estimate averages."""


class Bucket(NamedTuple):
    """One queue: a preset, a kind (``ranked`` / ``casual``) and a tier's id."""

    preset: str
    kind: str
    tier: str


@dataclass(frozen=True, slots=True)
class Person:
    """Who queues, as the server knows them when they queue.

    ``key`` is the server's id of the person (one queue and one table per key: an account's
    id for an account, a guest's own id); ``account`` is None for a guest.  ``points`` are the
    account's strength points in the preset's game (they give the tier), ``rating`` its
    OpenSkill ordinal there (``laizi.server.ratings.ordinal(mu, sigma)``; a fresh rating's is
    0).  ``address`` is the address the server sees (honouring ``--proxy-headers``)."""

    key: str
    account: int | None = None
    points: int | Fraction = 0
    rating: float = 0.0
    address: str | None = None


@dataclass(frozen=True, slots=True)
class Match:
    """A table the matchmaker formed: four seats, a person or a bot (None) in each."""

    id: str
    bucket: Bucket
    seats: tuple[Person | None, ...]
    formed: float
    deadline: float
    """Everyone must have accepted before this time (``formed`` + ``accept_s``)."""
    band: float | None
    """A ranked table's rating band (its spread is within it); None at a casual one."""

    @property
    def people(self) -> tuple[Person, ...]:
        return tuple(p for p in self.seats if p is not None)

    @property
    def bots(self) -> tuple[int, ...]:
        """The seats a bot takes."""
        return tuple(i for i, p in enumerate(self.seats) if p is None)

    def seat_of(self, key: str) -> int:
        """The seat of the person with this key (ValueError if not at this table)."""
        for i, p in enumerate(self.seats):
            if p is not None and p.key == key:
                return i
        raise ValueError(f"{key!r} is not at match {self.id}")


@dataclass(frozen=True, slots=True)
class Lapsed:
    """A match that was not accepted by everyone in time (or that someone declined)."""

    match: Match
    kept: tuple[str, ...]
    """Who accepted: back in the queue in their old place, their wait still counting."""
    requeued: tuple[str, ...]
    """No-shows put back at the queue's end (their wait starts again)."""
    barred: tuple[tuple[str, float], ...]
    """No-shows over the limit: out of the queue, refused until the given time."""
    left: tuple[str, ...]
    """Who declined (:meth:`Matchmaker.dequeue` during the accept): out of the queue."""


@dataclass(frozen=True, slots=True)
class Tick:
    """What one :meth:`Matchmaker.tick` did."""

    matches: tuple[Match, ...]
    """New matches, waiting for their people's ``accept``."""
    lapsed: tuple[Lapsed, ...]
    dropped: tuple[str, ...]
    """No longer queued: their connection stayed away past the grace, or they were found at a
    table (``at_table``)."""


class Status(NamedTuple):
    """A queued person's place: 1-based ``position`` in their queue (by wait), seconds
    ``waiting``, the estimated seconds still to wait."""

    position: int
    waiting: float
    estimate_s: float
    bucket: Bucket


class History(Protocol):
    """Who an account sat with at its latest ranked tables (the anti-collusion rule)."""

    def recent_partners(self, account: int, last: int) -> Mapping[int, int]:
        """How many of ``account``'s ``last`` ranked tables each other account sat at."""
        ...


class NoHistory:
    """A history that knows nobody (no table has been played)."""

    def recent_partners(self, account: int, last: int) -> Mapping[int, int]:
        return {}


class RecentTables:
    """A :class:`History` in memory: each account's latest ``keep`` ranked tables.

    >>> h = RecentTables()
    >>> h.add([1, 2, 3, 4]); h.add([1, 2, 5, 6])
    >>> dict(h.recent_partners(1, 20)), dict(h.recent_partners(1, 1))
    ({2: 2, 3: 1, 4: 1, 5: 1, 6: 1}, {2: 1, 5: 1, 6: 1})
    """

    def __init__(self, keep: int = 100) -> None:
        self._keep = keep
        self._tables: dict[int, deque[tuple[int, ...]]] = {}

    def add(self, accounts: Iterable[int]) -> None:
        """Book a ranked table these accounts played."""
        table = tuple(accounts)
        for account in table:
            self._tables.setdefault(account, deque(maxlen=self._keep)).append(table)

    def recent_partners(self, account: int, last: int) -> Counter[int]:
        tables = self._tables.get(account, ())
        out: Counter[int] = Counter()
        for table in list(tables)[-last:]:
            out.update(a for a in table if a != account)
        return out


@dataclass(slots=True)
class _Entry:
    person: Person
    bucket: Bucket
    joined: float
    """The wait counts from here."""
    seq: int
    """Order among equal ``joined`` (a counter of queueings)."""
    offline_since: float | None = None


@dataclass(slots=True)
class _Pending:
    match: Match
    entries: list[_Entry]
    accepted: set[str] = field(default_factory=set)
    declined: set[str] = field(default_factory=set)


class Matchmaker:
    """Every queue, the matches waiting for their ``accept``, the no-show record.

    ``presets``: the presets one may queue for (default: every preset of the registry).
    ``history``: the anti-collusion history (default: none).  ``at_table(key)``: whether that
    person holds a seat at a table now (they may not queue; default: nobody)."""

    def __init__(
        self,
        settings: MatchSettings | None = None,
        *,
        presets: Collection[str] | None = None,
        history: History | None = None,
        at_table: Callable[[str], bool] | None = None,
    ) -> None:
        if presets is None:
            from laizi.rules import PRESETS

            presets = tuple(PRESETS)
        self.settings = settings or MatchSettings()
        self.presets = frozenset(presets)
        self.history: History = history or NoHistory()
        self._at_table = at_table or (lambda key: False)
        self._buckets: dict[Bucket, dict[str, _Entry]] = {}
        self._queued: dict[str, _Entry] = {}
        self._offline: dict[str, float] = {}
        self._pending: dict[str, _Pending] = {}
        self._in_match: dict[str, str] = {}
        self._no_shows: dict[str, deque[float]] = {}
        self._barred: dict[str, float] = {}
        self._waits: dict[Bucket, deque[float]] = {}
        self._partners: dict[int, Mapping[int, int]] = {}
        self._seq = 0
        self._matches = 0

    # -- what a player does ---------------------------------------------------------------------
    def enqueue(
        self, person: Person, preset: str, kind: str, now: float, tier: str | None = None
    ) -> Status:
        """Queue ``person`` for ``preset`` and ``kind`` in ``tier`` (default: their own).

        One queue per person: queueing again replaces the queue they were in (the same queue
        again keeps their place and wait — a second tab).  Refused (:class:`ProtocolError`):
        ``bad_kind``, ``bad_preset``, ``account_required`` (a guest, ranked), ``queue_cooldown``
        (after too many no-shows), ``at_table``, ``in_match`` (a match awaits their accept),
        ``bad_tier``, ``tier_too_high`` — and nothing changes then."""
        if kind not in KINDS:
            raise ProtocolError(
                "bad_kind",
                "the kind of game is ranked or casual",
                "匹配类型只能是排位或休闲",
                {"kind": kind},
            )
        if preset not in self.presets:
            raise ProtocolError(
                "bad_preset", "no game has that preset", "没有这个预设玩法", {"preset": preset}
            )
        if kind == "ranked" and person.account is None:
            raise ProtocolError(
                "account_required", "ranked play needs an account: log in", "排位赛请先登录账号"
            )
        until = self._barred.get(person.key)
        if until is not None and now < until:
            seconds = math.ceil(until - now)
            raise ProtocolError(
                "queue_cooldown",
                f"too many matches not accepted: queue again in {seconds} s",
                f"多次未确认匹配，请 {seconds} 秒后再排队",
                {"seconds": seconds},
            )
        if self._at_table(person.key):
            raise ProtocolError(
                "at_table", "you are at a table: no queueing", "你正在牌桌上，不能排队"
            )
        if person.key in self._in_match:
            raise ProtocolError(
                "in_match",
                "a match is waiting for your accept",
                "已经匹配到对局，请先确认",
                {"match": self._in_match[person.key]},
            )
        own = tier_of(person.points, self.settings.tiers)
        chosen = own
        if tier is not None:
            found = find_tier(tier, self.settings.tiers)
            if found is None:
                raise ProtocolError(
                    "bad_tier", "no tier has that name", "没有这个段位", {"tier": tier}
                )
            if found not in allowed(person.points, self.settings.tiers):
                raise ProtocolError(
                    "tier_too_high",
                    f"your rank plays in {own.en} or below",
                    f"你的段位只能在{own.zh}及以下排队",
                    {"tier": found.id, "own": own.id},
                )
            chosen = found
        bucket = Bucket(preset, kind, chosen.id)
        old = self._queued.get(person.key)
        self._barred.pop(person.key, None)
        self._offline.pop(person.key, None)
        if old is not None and old.bucket == bucket:
            old.person = person
            old.offline_since = None
            status = self.status(person.key, now)
            assert status is not None
            return status
        if old is not None:
            self._remove(old)
        entry = _Entry(person, bucket, now, self._next_seq())
        self._add(entry)
        # the newest in its queue: last (O(1); ``now`` never goes back)
        return self._status(entry, len(self._buckets[bucket]), now)

    def dequeue(self, key: str) -> bool:
        """``key`` leaves their queue; during an accept this declines the match (a no-show;
        the match lapses at the next tick, the others keep their place).  False if they were
        neither queued nor matched."""
        self._offline.pop(key, None)
        entry = self._queued.get(key)
        if entry is not None:
            self._remove(entry)
            return True
        match_id = self._in_match.get(key)
        if match_id is None:
            return False
        pending = self._pending[match_id]
        pending.declined.add(key)
        pending.accepted.discard(key)
        return True

    def accept(self, key: str, match_id: str, now: float) -> Match | None:
        """``key`` accepts the match; the match once everyone has (the server makes its room:
        they are no longer the matchmaker's), None while someone has yet to.  ``match_gone``
        if the match lapsed, was declined, is past its deadline or is not theirs."""
        pending = self._pending.get(match_id)
        if (
            pending is None
            or self._in_match.get(key) != match_id
            or key in pending.declined
            or now >= pending.match.deadline
            or pending.declined
        ):
            raise ProtocolError(
                "match_gone",
                "that match was cancelled or is no longer yours",
                "这场匹配已取消或已失效",
                {"match": match_id},
            )
        pending.accepted.add(key)
        if len(pending.accepted) < len(pending.entries):
            return None
        del self._pending[match_id]
        for entry in pending.entries:
            del self._in_match[entry.person.key]
            self._offline.pop(entry.person.key, None)
        return pending.match

    def disconnect(self, key: str, now: float) -> None:
        """``key``'s connection dropped: they keep their place for the grace, are not matched
        meanwhile, and leave the queue at the first tick after it."""
        entry = self._queued.get(key)
        if entry is not None and entry.offline_since is None:
            entry.offline_since = now
            self._offline[key] = now

    def reconnect(self, key: str) -> None:
        """``key`` is back within the grace: their place and wait are kept."""
        entry = self._queued.get(key)
        if entry is not None:
            entry.offline_since = None
        self._offline.pop(key, None)

    # -- the ticks ------------------------------------------------------------------------------
    def tick(self, now: float, rng: Random) -> Tick:
        """Lapse the matches past their accept window, drop the queued people offline past the
        grace or found at a table, then form every table the queues allow.

        **Work**: O(n log n) in the n people waiting.  Each ranked queue is sorted once by
        rating and once by wait; then, longest wait first, a person's table is sought among at
        most ``neighbours`` still-waiting people on each side of their rating (a linked list
        over the rating order, from which the seated are unlinked in O(1)) within their band —
        O(1) per person.  A casual queue is sorted once by wait and cut into tables.  Finding
        the lapses and drops costs O(matches awaiting an accept + people offline)."""
        self._partners.clear()
        lapsed = self._lapse(now)
        dropped = self._drop(now)
        matches: list[Match] = []
        for bucket in sorted(self._buckets):
            entries: list[_Entry] = []
            for entry in list(self._buckets[bucket].values()):
                if self._at_table(entry.person.key):  # seated meanwhile: never at two tables
                    self._offline.pop(entry.person.key, None)
                    self._remove(entry)
                    dropped.append(entry.person.key)
                elif entry.offline_since is None:
                    entries.append(entry)
            if bucket.kind == "ranked":
                tables = self._pair_ranked(entries, now)
            else:
                tables = self._fill_casual(entries, now)
            for people, band in tables:
                matches.append(self._form(bucket, people, band, now, rng))
        self._partners.clear()
        return Tick(tuple(matches), tuple(lapsed), tuple(dropped))

    def _pair_ranked(
        self, entries: list[_Entry], now: float
    ) -> list[tuple[list[_Entry], float | None]]:
        """Tables of four from one ranked queue: spread ≤ the band of the longest wait among
        them, nobody kept apart from another (:meth:`_apart`)."""
        n = len(entries)
        if n < SEATS:
            return []
        by_rating = sorted(entries, key=lambda e: e.person.rating)
        ratings = [e.person.rating for e in by_rating]
        anchors = sorted(range(n), key=lambda i: (by_rating[i].joined, by_rating[i].seq))
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        taken = [False] * n
        reach = self.settings.neighbours
        tables: list[tuple[list[_Entry], float | None]] = []
        for a in anchors:
            if taken[a]:
                continue
            band = self.settings.band(now - by_rating[a].joined)
            r = ratings[a]
            left: list[int] = []
            j = prv[a]
            while j >= 0 and len(left) < reach and r - ratings[j] <= band:
                left.append(j)
                j = prv[j]
            right: list[int] = []
            j = nxt[a]
            while j < n and len(right) < reach and ratings[j] - r <= band:
                right.append(j)
                j = nxt[j]
            group = [a]
            low = high = r
            for c in _nearest_first(left, right, ratings, r):
                rc = ratings[c]
                if max(high, rc) - min(low, rc) > band:
                    continue
                if any(self._apart(by_rating[c], by_rating[g]) for g in group):
                    continue
                group.append(c)
                low, high = min(low, rc), max(high, rc)
                if len(group) == SEATS:
                    break
            if len(group) < SEATS:
                continue
            for g in group:
                taken[g] = True
                before, after = prv[g], nxt[g]
                if before >= 0:
                    nxt[before] = after
                if after < n:
                    prv[after] = before
            tables.append(([by_rating[g] for g in group], band))
        return tables

    def _fill_casual(
        self, entries: list[_Entry], now: float
    ) -> list[tuple[list[_Entry], float | None]]:
        """Tables from a casual queue, longest wait first: four people at once; the rest
        (fewer than four) with bots once the first of them has waited ``casual_wait_s``."""
        order = sorted(entries, key=lambda e: (e.joined, e.seq))
        full = len(order) - len(order) % SEATS
        tables: list[tuple[list[_Entry], float | None]] = [
            (order[i : i + SEATS], None) for i in range(0, full, SEATS)
        ]
        rest = order[full:]
        if rest and now - rest[0].joined >= self.settings.casual_wait_s:
            tables.append((rest, None))
        return tables

    def _apart(self, a: _Entry, b: _Entry) -> bool:
        """Whether two people may not sit at one ranked table: one account, one address (if
        the rule is on), or together at more than K of either's last N ranked tables."""
        pa, pb = a.person, b.person
        if pa.account is not None and pa.account == pb.account:
            return True
        rule = self.settings.shared_address_rule
        if rule and pa.address is not None and pa.address == pb.address:
            return True
        if pa.account is None or pb.account is None:
            return False
        k = self.settings.together_k
        return (
            self._partners_of(pa.account).get(pb.account, 0) > k
            or self._partners_of(pb.account).get(pa.account, 0) > k
        )

    def _partners_of(self, account: int) -> Mapping[int, int]:
        found = self._partners.get(account)
        if found is None:
            found = self.history.recent_partners(account, self.settings.together_n)
            self._partners[account] = found
        return found

    def _form(
        self, bucket: Bucket, people: list[_Entry], band: float | None, now: float, rng: Random
    ) -> Match:
        self._matches += 1
        match_id = f"m{self._matches}"
        seats: list[Person | None] = [e.person for e in people]
        seats += [None] * (SEATS - len(seats))
        rng.shuffle(seats)
        match = Match(match_id, bucket, tuple(seats), now, now + self.settings.accept_s, band)
        waits = self._waits.setdefault(bucket, deque(maxlen=_RECENT_WAITS))
        for entry in people:
            self._remove(entry)
            self._in_match[entry.person.key] = match_id
            waits.append(now - entry.joined)
        self._pending[match_id] = _Pending(match, people)
        return match

    def _lapse(self, now: float) -> list[Lapsed]:
        out: list[Lapsed] = []
        for match_id in [
            m for m, p in self._pending.items() if p.declined or now >= p.match.deadline
        ]:
            pending = self._pending.pop(match_id)
            kept: list[str] = []
            requeued: list[str] = []
            barred: list[tuple[str, float]] = []
            left: list[str] = []
            for entry in pending.entries:
                key = entry.person.key
                del self._in_match[key]
                if key in pending.accepted:
                    self._add(entry)  # their old place: joined and seq unchanged
                    kept.append(key)
                    continue
                if self._no_show(key, now):
                    self._offline.pop(key, None)
                    barred.append((key, self._barred[key]))
                elif key in pending.declined:
                    self._offline.pop(key, None)
                    left.append(key)
                else:
                    entry.joined = now
                    entry.seq = self._next_seq()
                    self._add(entry)
                    requeued.append(key)
            out.append(
                Lapsed(pending.match, tuple(kept), tuple(requeued), tuple(barred), tuple(left))
            )
        return out

    def _no_show(self, key: str, now: float) -> bool:
        """Book a no-show; True if it bars ``key`` from the queue (they are then out of it)."""
        times = self._no_shows.setdefault(key, deque())
        times.append(now)
        while times and now - times[0] >= self.settings.no_show_window_s:
            times.popleft()
        if len(times) < self.settings.no_show_limit:
            return False
        del self._no_shows[key]
        self._barred[key] = now + self.settings.no_show_penalty_s
        return True

    def _drop(self, now: float) -> list[str]:
        grace = self.settings.disconnect_grace_s
        gone = [k for k, since in self._offline.items() if now - since >= grace]
        for key in gone:
            del self._offline[key]
            entry = self._queued.get(key)
            if entry is not None:
                self._remove(entry)
        return gone

    # -- what the server shows ------------------------------------------------------------------
    def status(self, key: str, now: float) -> Status | None:
        """``key``'s place in their queue, or None if not queued (O(n) in their queue; for
        everyone at once, :meth:`statuses`)."""
        entry = self._queued.get(key)
        if entry is None:
            return None
        mine = (entry.joined, entry.seq)
        ahead = sum((e.joined, e.seq) < mine for e in self._buckets[entry.bucket].values())
        return self._status(entry, ahead + 1, now)

    def statuses(self, now: float) -> dict[str, Status]:
        """Every queued person's :class:`Status` (O(n log n))."""
        out: dict[str, Status] = {}
        for bucket in sorted(self._buckets):
            order = sorted(self._buckets[bucket].values(), key=lambda e: (e.joined, e.seq))
            for position, entry in enumerate(order, 1):
                out[entry.person.key] = self._status(entry, position, now)
        return out

    def _status(self, entry: _Entry, position: int, now: float) -> Status:
        waiting = now - entry.joined
        waits = self._waits.get(entry.bucket)
        if waits:
            typical = sum(waits) / len(waits)
        elif entry.bucket.kind == "casual":
            typical = self.settings.casual_wait_s
        else:
            typical = self.settings.first_estimate_s
        return Status(position, waiting, max(0.0, typical - waiting), entry.bucket)

    def counts(self) -> dict[Bucket, int]:
        """How many wait in each queue that has someone (GET /api/queue); a queue not listed
        has nobody.  People whose match awaits their accept are not counted."""
        return {b: len(q) for b, q in sorted(self._buckets.items()) if q}

    def waits(self, key: str) -> bool:
        """Whether ``key`` is queued or has a match awaiting their accept (O(1))."""
        return key in self._queued or key in self._in_match

    def match_of(self, key: str) -> Match | None:
        """The match awaiting ``key``'s accept, if any."""
        match_id = self._in_match.get(key)
        return None if match_id is None else self._pending[match_id].match

    def barred_until(self, key: str, now: float) -> float | None:
        """When ``key`` may queue again after too many no-shows (None: they may now)."""
        until = self._barred.get(key)
        return until if until is not None and now < until else None

    def queued(self) -> frozenset[str]:
        """Everyone waiting in a queue (not those whose match awaits their accept)."""
        return frozenset(self._queued)

    def matched(self) -> frozenset[str]:
        """Everyone whose match awaits their accept."""
        return frozenset(self._in_match)

    def tier(self, person: Person) -> Tier:
        """The person's own tier."""
        return tier_of(person.points, self.settings.tiers)

    # -- the state as data (a cluster keeps it in Redis) ---------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """Everything the matchmaker holds — who waits where since when, the matches awaiting
        their accept and who accepted, the no-show record and bars, the recent waits, the
        counters — as plain JSON-able data; :meth:`restore` makes the same matchmaker from it
        (the settings, presets, history and ``at_table`` are not part of it).

        >>> from random import Random
        >>> mm = Matchmaker(presets=["baishan"])
        >>> for i in range(5):
        ...     _ = mm.enqueue(Person(f"p{i}", account=i, points=Fraction(i, 2)), "baishan",
        ...                    "ranked", now=float(i))
        >>> _ = mm.tick(9.0, Random(1)); _ = mm.accept("p0", "m1", now=9.5)
        >>> copy = Matchmaker(presets=["baishan"]); copy.restore(mm.snapshot())
        >>> copy.snapshot() == mm.snapshot(), copy.queued(), copy.matched() == mm.matched()
        (True, frozenset({'p4'}), True)
        """
        return {
            "queued": [_entry_data(e) for e in self._queued.values()],
            "pending": [
                {
                    "match": _match_data(p.match),
                    "entries": [_entry_data(e) for e in p.entries],
                    "accepted": sorted(p.accepted),
                    "declined": sorted(p.declined),
                }
                for p in self._pending.values()
            ],
            "no_shows": {k: list(v) for k, v in self._no_shows.items()},
            "barred": dict(self._barred),
            "waits": [[list(b), list(w)] for b, w in self._waits.items()],
            "seq": self._seq,
            "matches": self._matches,
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        """Forget everything and hold what :meth:`snapshot` gave instead."""
        self._buckets.clear()
        self._queued.clear()
        self._offline.clear()
        self._pending.clear()
        self._in_match.clear()
        self._no_shows = {k: deque(v) for k, v in state["no_shows"].items()}
        self._barred = {k: float(v) for k, v in state["barred"].items()}
        self._waits = {Bucket(*b): deque(w, maxlen=_RECENT_WAITS) for b, w in state["waits"]}
        self._seq = int(state["seq"])
        self._matches = int(state["matches"])
        for data in state["queued"]:
            self._add(_entry_of(data))
        for data in state["pending"]:
            match = _match_of(data["match"])
            entries = [_entry_of(e) for e in data["entries"]]
            self._pending[match.id] = _Pending(
                match, entries, set(data["accepted"]), set(data["declined"])
            )
            for entry in entries:
                self._in_match[entry.person.key] = match.id

    # -- bookkeeping ----------------------------------------------------------------------------
    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _add(self, entry: _Entry) -> None:
        self._buckets.setdefault(entry.bucket, {})[entry.person.key] = entry
        self._queued[entry.person.key] = entry
        if entry.offline_since is not None:
            self._offline[entry.person.key] = entry.offline_since

    def _remove(self, entry: _Entry) -> None:
        key = entry.person.key
        queue = self._buckets[entry.bucket]
        del queue[key]
        if not queue:
            del self._buckets[entry.bucket]
        del self._queued[key]


def _nearest_first(left: list[int], right: list[int], ratings: list[float], r: float) -> list[int]:
    """``left`` and ``right`` (each nearest first) merged by distance from ``r`` (left first
    on a tie)."""
    out: list[int] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if j >= len(right) or (i < len(left) and r - ratings[left[i]] <= ratings[right[j]] - r):
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out


def person_data(p: Person) -> list[Any]:
    """A person as JSON-able data (:func:`person_of` reads it back)."""
    return [p.key, p.account, str(p.points), p.rating, p.address]


def person_of(data: list[Any]) -> Person:
    """The person :func:`person_data` wrote."""
    key, account, points, rating, address = data
    value = Fraction(points)
    return Person(key, account, int(value) if value.denominator == 1 else value, rating, address)


def _entry_data(e: _Entry) -> list[Any]:
    return [person_data(e.person), list(e.bucket), e.joined, e.seq, e.offline_since]


def _entry_of(data: list[Any]) -> _Entry:
    person, bucket, joined, seq, offline_since = data
    return _Entry(person_of(person), Bucket(*bucket), joined, seq, offline_since)


def _match_data(m: Match) -> dict[str, Any]:
    return {
        "id": m.id,
        "bucket": list(m.bucket),
        "seats": [None if p is None else person_data(p) for p in m.seats],
        "formed": m.formed,
        "deadline": m.deadline,
        "band": m.band,
    }


def _match_of(data: Mapping[str, Any]) -> Match:
    seats = tuple(None if p is None else person_of(p) for p in data["seats"])
    return Match(
        data["id"], Bucket(*data["bucket"]), seats, data["formed"], data["deadline"], data["band"]
    )
