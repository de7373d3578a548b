"""The cluster's Redis keys and Lua scripts (each script runs atomically in Redis).

Every key starts with the cluster's prefix (``laizi:`` by default, ``--redis-prefix``):

- ``up`` (string, no expiry): made by the first process that finds it missing — a new value
  tells every process that Redis lost its data (:meth:`laizi.server.cluster.node.Cluster.beat`);
  the secret the processes show each other is not in Redis but in PostgreSQL
  (``cluster_settings``);
- ``nodes`` (set): the processes that joined; ``node:ID`` (string, expires): a live process, its
  address and load (renewed by its heartbeat); ``load`` (hash): process → rooms it holds;
- ``rooms`` (set): the codes of the rooms not yet over (each must have an owner);
  ``lease:CODE`` (string, expires): the process that owns the room;
- ``lobby:ID``, ``conns:ID`` (hashes, expire): a process's lobby entries by room code, its
  WebSocket connections by client address; ``cool:ADDRESS`` (expires): cooling down after abuse;
- ``quota:room``, ``quota:address``, ``quota:account``, ``quota:bots`` (hashes): who made each
  open room; rooms per address, per account, bots-only rooms per account;
- ``login:pair:ACCOUNT:ADDRESS``, ``login:account:ACCOUNT``, ``limit:NAME:KEY`` (sorted sets,
  expire): the login and registration windows, scored by Redis's own clock; ``seq``: a counter;
- ``news`` (channel): ``owner CODE ID`` (a room changed hands), ``orphan CODE`` (take it now);
- the matchmaking queue (:mod:`laizi.server.cluster.queue`): ``mm:lease`` (string, expires: the
  matchmaker's token ``NODE:EPOCH``), ``mm:epoch`` (counter), ``mm:state`` (the matchmaker's
  state, JSON) and ``mm:version`` (its number), ``mm:inbox`` (list: the players' requests, oldest
  first), ``mm:counts`` (``GET /api/queue``'s answer), ``mm:out`` (stream, capped: the messages for
  the players, each process delivers its own), ``mm:wake`` (channel: a request is in the inbox).
"""

from __future__ import annotations

__all__ = [
    "ADMIT",
    "CONNECT",
    "DISCONNECT",
    "FAIL",
    "HIT",
    "MM_BEGIN",
    "MM_COMMIT",
    "RELEASE",
    "RENEW",
    "ROOM_ADD",
    "ROOM_RELEASE",
]

RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  elseif not holder then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""
"""Renew the leases in KEYS held by ARGV[1] for ARGV[2] ms; 1 per lease still held, else 0.

A lease that lapsed (a late heartbeat) and nobody took is taken back: safe, because a process
that did take the room meanwhile raised its epoch in the database, where the writes are
fenced — the late owner then finds its writes refused and drops the room."""

RELEASE = """
local n = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    n = n + 1
  end
end
return n
"""
"""Delete the leases in KEYS that ARGV[1] holds (never another process's)."""

CONNECT = """
local prefix, node, address, limit, ttl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
if redis.call('EXISTS', prefix .. 'cool:' .. address) == 1 then return -1 end
local total = 0
for _, other in ipairs(redis.call('SMEMBERS', prefix .. 'nodes')) do
  if redis.call('EXISTS', prefix .. 'node:' .. other) == 1 then
    total = total + tonumber(redis.call('HGET', prefix .. 'conns:' .. other, address) or '0')
  end
end
if total >= limit then return -2 end
redis.call('HINCRBY', prefix .. 'conns:' .. node, address, 1)
redis.call('PEXPIRE', prefix .. 'conns:' .. node, ttl)
return total + 1
"""
"""Count a connection of an address across the live processes: -1 cooling down, -2 too many,
else the new count (it is counted on this process's hash)."""

DISCONNECT = """
local left = redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if left <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return left
"""

ROOM_ADD = """
local code, address, account, bots = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('HEXISTS', KEYS[1], code) == 1 then return {0, 0, 0, 0} end
local by_address = tonumber(redis.call('HGET', KEYS[2], address) or '0')
local by_account, by_bots = 0, 0
if account ~= '' then
  by_account = tonumber(redis.call('HGET', KEYS[3], account) or '0')
  by_bots = tonumber(redis.call('HGET', KEYS[4], account) or '0')
end
if by_address >= tonumber(ARGV[5]) or (account ~= '' and (by_account >= tonumber(ARGV[6])
    or (bots == '1' and by_bots >= tonumber(ARGV[7])))) then
  return {1, by_address, by_account, by_bots}
end
redis.call('HSET', KEYS[1], code, address .. '\\n' .. account .. '\\n' .. bots)
redis.call('HINCRBY', KEYS[2], address, 1)
if account ~= '' then
  redis.call('HINCRBY', KEYS[3], account, 1)
  if bots == '1' then redis.call('HINCRBY', KEYS[4], account, 1) end
end
return {0, 0, 0, 0}
"""
"""Check and count a new room of (address, account) against the per-address and per-account
limits (ARGV[5..7]) in one step: ``{0, …}`` counted, ``{1, by_address, by_account, bots}``
refused with the counts that refused it."""

ROOM_RELEASE = """
local found = redis.call('HGET', KEYS[1], ARGV[1])
if not found then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
local address, account, bots = string.match(found, '^(.-)\\n(.-)\\n(.-)$')
local function down(key, field)
  if redis.call('HINCRBY', key, field, -1) <= 0 then redis.call('HDEL', key, field) end
end
down(KEYS[2], address)
if account ~= '' then
  down(KEYS[3], account)
  if bots == '1' then down(KEYS[4], account) end
end
return 1
"""
"""A room is over: it no longer counts against its maker (a second call does nothing)."""

FAIL = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZADD', KEYS[1], now, tostring(redis.call('INCR', KEYS[2])))
redis.call('PEXPIRE', KEYS[1], math.ceil(tonumber(ARGV[1]) * 1000))
return 1
"""
"""A failed login at an account (its window of failures, on Redis's clock)."""

ADMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local window, pair_limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local free, max_delay = tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
local tries = redis.call('ZCARD', KEYS[1])
if tries >= pair_limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {'login_locked', tostring(tonumber(oldest[2]) + window - now)}
end
local over = redis.call('ZCARD', KEYS[2]) - free
if tries > 0 and over >= 0 then
  local delay = math.min(2 ^ math.min(over, 32), max_delay)
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  if now - tonumber(last[2]) < delay then
    return {'login_slowed', tostring(tonumber(last[2]) + delay - now)}
  end
end
redis.call('ZADD', KEYS[1], now, tostring(redis.call('INCR', KEYS[3])))
redis.call('PEXPIRE', KEYS[1], math.ceil(window * 1000))
return {'', '0'}
"""
"""A login try of (account, address) — ``laizi.server.login_guard.LoginGuard.admit`` on Redis's
clock: KEYS = the pair's tries, the account's failures, a counter for unique members."""

HIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local limit, window, count = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return tostring(tonumber(oldest[2]) + window - now)
end
if count == '1' then
  redis.call('ZADD', KEYS[1], now, tostring(redis.call('INCR', KEYS[2])))
  redis.call('PEXPIRE', KEYS[1], math.ceil(window * 1000))
end
return ''
"""
"""A sliding window of ``limit`` hits (``laizi.server.accounts.RateLimiter`` on Redis's clock):
'' allowed (and counted when ARGV[3] is '1'), else the seconds until the next is allowed."""

MM_BEGIN = """
local holder = redis.call('GET', KEYS[1])
local token = ARGV[1]
if not holder then
  local epoch = redis.call('INCR', KEYS[2])
  token = ARGV[2] .. ':' .. epoch
  redis.call('SET', KEYS[1], token, 'PX', ARGV[3])
elseif holder ~= token then
  return {0}
else
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
local version = redis.call('GET', KEYS[3]) or '0'
return {1, token, version, redis.call('LRANGE', KEYS[4], 0, tonumber(ARGV[4]) - 1)}
"""
"""A matchmaker's round begins: KEYS ``mm:lease``, ``mm:epoch``, ``mm:version``, ``mm:inbox``;
ARGV the token held (or ''), this process's id, the lease in ms, how many requests at most.
``{0}`` if another process holds the lease; else ``{1, token, version, requests}`` — the lease
renewed, or taken with a new epoch if nobody held it (the token is then new)."""

MM_COMMIT = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SET', KEYS[3], ARGV[3])
if tonumber(ARGV[4]) > 0 then redis.call('LTRIM', KEYS[4], tonumber(ARGV[4]), -1) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('SET', KEYS[5], ARGV[8])
for i = 10, #ARGV do
  redis.call('SADD', KEYS[6], ARGV[i])
  redis.call('PUBLISH', ARGV[9], 'orphan ' .. ARGV[i])
end
if ARGV[7] ~= '' then redis.call('XADD', KEYS[7], 'MAXLEN', '~', ARGV[6], '*', 'm', ARGV[7]) end
return 1
"""
"""A matchmaker's round ends — only if its token still holds the lease (the fence: a matchmaker
that was paused past its lease writes nothing, sends nothing, opens no room).  KEYS ``mm:lease``,
``mm:version``, ``mm:state``, ``mm:inbox``, ``mm:counts``, ``rooms``, ``mm:out``; ARGV the
token, the new version, the new state, how many requests it took from the inbox, the lease in
ms, about how many entries ``mm:out`` keeps and what to add to it (or ''), the counts, the
``news`` channel, then the codes of the rooms it made (listed among the rooms that need an
owner, announced as orphans).
1 if written, 0 if the lease is not this token's."""
