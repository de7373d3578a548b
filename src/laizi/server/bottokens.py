"""Bot tokens: an account's keys for its outside bots to take seats at live tables.

A token is 256 random bits (``lzb_`` + URL-safe base64), shown once when issued; the database
keeps only its SHA-256 (like a session's), so a copy of the database seats no bot.  An account
holds at most :data:`MAX_TOKENS` live tokens; a revoked token seats nothing from then on (a bot
already seated keeps its seat until it leaves; one waiting for a ladder table leaves the ladder).

A token is also a **bot identity**: its name names the bot, shown as ``owner/name`` (the
account's name, then the token's), unique among the owner's live tokens (case-insensitive).  The
bot ladder rates each token on its own (``laizi.server.botratings``), never its owner.

* ``POST /api/bot-tokens`` ``{"name": "…"}`` (logged in): ``201 {"id", "name", "token",
  "created"}`` — the token is shown this once;
* ``GET /api/bot-tokens``: ``{"tokens": [{"id", "name", "created", "last_used", "revoked"}]}``;
* ``DELETE /api/bot-tokens/ID``: ``{"ok": true}``; ``404`` when the account has no such live
  token.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    and_,
    func,
    insert,
    select,
    update,
)

from laizi.server.accounts import Account, AccountError, accounts
from laizi.server.names import NameRefused, normalize_name
from laizi.server.store import inserted_id, metadata

__all__ = ["MAX_TOKENS", "PREFIX", "BotTokens", "bot_tokens"]

PREFIX = "lzb_"
MAX_TOKENS = 10
"""Live (not revoked) bot tokens per account."""

bot_tokens = Table(
    "bot_tokens",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("name", String(32), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created", Float, nullable=False),
    Column("last_used", Float, nullable=True),
    Column("revoked", Float, nullable=True),
)
Index("bot_tokens_account", bot_tokens.c.account_id)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class BotIdentity:
    """Who a token seats: the account and the token's own name."""

    account: Account
    token_id: int
    name: str

    @property
    def shown(self) -> str:
        """The bot as the ladder shows it: ``owner/name``."""
        return f"{self.account.name}/{self.name}"


class BotTokens:
    """Issue, list, revoke and look up bot tokens."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.clock = clock

    def issue(self, account_id: int, name: Any) -> dict[str, Any]:
        if not isinstance(name, str):
            raise AccountError("bad_name", "name: give the bot a name", zh="请给机器人起个名字")
        try:
            name = normalize_name(name)
        except NameRefused as error:
            raise AccountError(error.code, error.en, zh=error.zh) from None
        token = PREFIX + secrets.token_urlsafe(32)
        now = self.clock()
        with self.engine.begin() as c:
            names = c.execute(
                select(bot_tokens.c.name).where(
                    and_(bot_tokens.c.account_id == account_id, bot_tokens.c.revoked.is_(None))
                )
            ).scalars()
            if any(other.casefold() == name.casefold() for other in names):
                raise AccountError(
                    "bot_name_taken",
                    f"you already have a live bot named {name!r}: a bot's name is its identity "
                    "on the ladder (owner/name); pick another or revoke that token",
                    409,
                    zh=f"你已有一个名为 {name!r} 的有效机器人：机器人的名字就是它在天梯上的身份"
                    "（主人/名字），请换个名字或先吊销那个令牌",
                )
            live = c.execute(
                select(func.count())
                .select_from(bot_tokens)
                .where(and_(bot_tokens.c.account_id == account_id, bot_tokens.c.revoked.is_(None)))
            ).scalar()
            if int(live or 0) >= MAX_TOKENS:
                raise AccountError(
                    "too_many_tokens",
                    f"an account holds at most {MAX_TOKENS} bot tokens: revoke one first",
                    409,
                    zh=f"一个账号最多持有 {MAX_TOKENS} 个机器人令牌，请先吊销一个",
                )
            result = c.execute(
                insert(bot_tokens).values(
                    account_id=account_id, name=name, token_hash=_hash(token), created=now
                )
            )
            token_id = inserted_id(result)
        return {"id": token_id, "name": name, "token": token, "created": now}

    def list(self, account_id: int) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            rows = c.execute(
                select(bot_tokens)
                .where(bot_tokens.c.account_id == account_id)
                .order_by(bot_tokens.c.id)
            ).all()
        return [
            {
                "id": row.id,
                "name": row.name,
                "created": row.created,
                "last_used": row.last_used,
                "revoked": row.revoked,
            }
            for row in rows
        ]

    def revoke(self, account_id: int, token_id: int) -> bool:
        with self.engine.begin() as c:
            done = c.execute(
                update(bot_tokens)
                .where(
                    and_(
                        bot_tokens.c.id == token_id,
                        bot_tokens.c.account_id == account_id,
                        bot_tokens.c.revoked.is_(None),
                    )
                )
                .values(revoked=self.clock())
            )
        return bool(done.rowcount)

    def identify(self, token: Any) -> BotIdentity | None:
        """The account a live token belongs to (and marks it used), else None."""
        if not isinstance(token, str) or not token.startswith(PREFIX) or len(token) > 128:
            return None
        with self.engine.begin() as c:
            row = c.execute(
                select(
                    bot_tokens.c.id,
                    bot_tokens.c.name,
                    bot_tokens.c.revoked,
                    accounts.c.id.label("account_id"),
                    accounts.c.name.label("account_name"),
                    accounts.c.created,
                )
                .join(accounts, accounts.c.id == bot_tokens.c.account_id)
                .where(bot_tokens.c.token_hash == _hash(token))
            ).first()
            if row is None or row.revoked is not None:
                return None
            c.execute(
                update(bot_tokens).where(bot_tokens.c.id == row.id).values(last_used=self.clock())
            )
        return BotIdentity(Account(row.account_id, row.account_name, row.created), row.id, row.name)
