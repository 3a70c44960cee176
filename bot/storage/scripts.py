"""The Lua scripts of :mod:`bot.storage.redis_store`: each runs atomically inside Redis, on one slot.

A table is a hash ``{v: version, r: revision, data: JSON}``. Every save writes a new random revision
beside the incremented version, and the compare-and-set checks both: a Redis that went back to an
older state (a failover's replication lag, AOF ``everysec`` losing a second) and was advanced again
by another process can reach the same version with other contents, but never the same revision. A
table stored before revisions existed has none; it compares as ``''`` until its next save.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable
from typing import Any

from redis.exceptions import ResponseError

# The compare-and-set, the head of every script that changes a table: KEYS[1] the table; ARGV[1] the
# expected version ('0': there must be none), ARGV[2] the expected revision.
_CHECK = """
local seen = redis.call('HMGET', KEYS[1], 'v', 'r')
if seen[1] then
  if seen[1] ~= ARGV[1] or (seen[2] or '') ~= ARGV[2] then return 0 end
elseif ARGV[1] ~= '0' then return 0 end
"""
# KEYS[1] table; ARGV: expected version and revision, new version and revision, JSON, ttl in ms.
SAVE = (
    _CHECK
    + """
redis.call('HSET', KEYS[1], 'v', ARGV[3], 'r', ARGV[4], 'data', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
"""
)
# A save that also arms the table's timers, in one round trip. KEYS[1] table, KEYS[2] the timers'
# sorted set; ARGV: SAVE's six, then ADD_TIMERS's arguments. A single Redis only: on a cluster the
# timers' buckets are on other slots than the table, and the save and the arming are two scripts.
SAVE_ARM = (
    _CHECK
    + """
redis.call('HSET', KEYS[1], 'v', ARGV[3], 'r', ARGV[4], 'data', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
local d = tonumber(ARGV[7])
if d > 0 then redis.call('ZREM', KEYS[2], unpack(ARGV, 8, d + 7)) end
local u = ARGV[d + 8]
if u ~= '' and redis.call('ZSCORE', KEYS[2], u) then return 1 end
for i = d + 9, #ARGV, 2 do redis.call('ZADD', KEYS[2], 'NX', ARGV[i], ARGV[i + 1]) end
return 1
"""
)
# KEYS[1] table, KEYS[2] history; ARGV: expected version and revision, archive JSON ('' for none),
# history length. A table that is gone is not deleted again (0).
DELETE = (
    _CHECK
    + """
if not seen[1] then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[3] ~= '' then
  redis.call('LPUSH', KEYS[2], ARGV[3])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[4]) - 1)
end
return 1
"""
)
# KEYS[1] a table that must not exist yet; ARGV: its version, revision, JSON, ttl in ms. (A move
# across slots.)
PUT_NEW = """
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', ARGV[2], 'data', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""
# KEYS[1] history; ARGV: the record's JSON, history length.
PUSH = """
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
return 1
"""
# KEYS[1] a bucket of the timers' sorted set, KEYS[2] its timers in flight (score: when the lease
# ends), KEYS[3] the record of this claim (its token's); ARGV: now, how many at most, lease end, how
# long the record is kept (ms). Leases that ended (the process that claimed them died before firing)
# go back to the due set first; due members then move to the in-flight set, in one script, so of
# several processes claiming at once exactly one gets each timer. Returns members and their due
# times, flat. A claim that took any is recorded under its token: the same claim again (its answer
# was lost with its connection) returns what it took rather than nothing.
CLAIM = """
local prior = redis.call('GET', KEYS[3])
if prior then return cjson.decode(prior) end
local n = tonumber(ARGV[2])
local lost = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, n)
for _, m in ipairs(lost) do
  redis.call('ZADD', KEYS[1], 'NX', ARGV[1], m)
  redis.call('ZREM', KEYS[2], m)
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, n)
for i = 1, #due, 2 do
  redis.call('ZREM', KEYS[1], due[i])
  redis.call('ZADD', KEYS[2], ARGV[3], due[i])
end
if #due > 0 then redis.call('SET', KEYS[3], cjson.encode(due), 'PX', ARGV[4]) end
return due
"""
# KEYS[1] an update's claim; ARGV: now, lease end, how long a claim is kept (s). The claim holds
# 'done' or the time its lease ends: a lease that ended (its process died) may be claimed again.
CLAIM_UPDATE = """
local v = redis.call('GET', KEYS[1])
if v and (v == 'done' or (ARGV[4] ~= '1' and (tonumber(v) or 0) > tonumber(ARGV[1]))) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
"""
# A group upgraded to a supergroup. KEYS: old table, new table, then pairs of the old and new chat's
# other keys (settings, history, the standings'). ARGV: the old table's expected version ('' if it
# has none) and revision, the moved table's revision, JSON and ttl in ms. One script, so no one ever
# sees the table in both chats or in neither.
MOVE = """
if ARGV[1] ~= '' then
  local seen = redis.call('HMGET', KEYS[1], 'v', 'r')
  if seen[1] ~= ARGV[1] or (seen[2] or '') ~= ARGV[2] then return 0 end
  if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
  redis.call('HSET', KEYS[2], 'v', tostring(tonumber(seen[1]) + 1), 'r', ARGV[3], 'data', ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
  redis.call('DEL', KEYS[1])
end
for i = 3, #KEYS, 2 do
  if redis.call('EXISTS', KEYS[i]) == 1 and redis.call('EXISTS', KEYS[i + 1]) == 0 then
    redis.call('RENAME', KEYS[i], KEYS[i + 1])
  end
end
return 1
"""
# KEYS[1] a bucket of the timers' sorted set; ARGV: how many members to drop, those members, a
# member that, while pending, stops the addition ('' for none), then score and member pairs, each
# added only if not pending already. The drops happen either way.
ADD_TIMERS = """
local d = tonumber(ARGV[1])
if d > 0 then redis.call('ZREM', KEYS[1], unpack(ARGV, 2, d + 1)) end
local u = ARGV[d + 2]
if u ~= '' and redis.call('ZSCORE', KEYS[1], u) then return 0 end
for i = d + 3, #ARGV, 2 do redis.call('ZADD', KEYS[1], 'NX', ARGV[i], ARGV[i + 1]) end
return 1
"""
# A table that does not load, moved aside for inspection. KEYS[1] the table, KEYS[2] where it goes
# (same slot: same hash tag); ARGV: 'hash' and the version and SHA-1 of the data seen ('' for none),
# or 'other' (it is not a hash), then how long it is kept (ms). Moved only if it is still what was
# seen: of several processes finding it at once one moves it, and a table made since stays.
QUARANTINE = """
local t = redis.call('TYPE', KEYS[1]).ok
if t == 'none' then return 0 end
if ARGV[1] == 'hash' then
  if t ~= 'hash' then return 0 end
  local seen = redis.call('HMGET', KEYS[1], 'v', 'data')
  if (seen[1] or '') ~= ARGV[2] or (seen[2] and redis.sha1hex(seen[2]) or '') ~= ARGV[3] then return 0 end
elseif t == 'hash' then return 0 end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
"""


def new_revision() -> str:
    """A table state's revision: random, so no two saves ever write the same one."""
    return secrets.token_hex(8)


def wrong_type(error: ResponseError) -> bool:
    """Whether Redis refused a command because the key holds another type (a table that is not a hash)."""
    return "WRONGTYPE" in str(error)


async def cas(run: Awaitable[Any]) -> Any:
    """A compare-and-set script's answer; 0 (lost) when the table's key is not a hash at all: the
    next load moves it aside (bot/storage/quarantine.py)."""
    try:
        return await run
    except ResponseError as e:
        if wrong_type(e):
            return 0
        raise
