"""Standings and personal figures in Redis: one script per finished match per chat, one per person.

A chat's keys share its hash tag ``{chat_id}`` and a person's ``{u<id>}``, so every script touches one
slot and runs on a Redis Cluster too:

* ``kozel:{chat}:counted`` — a sorted set of the match ids already counted (score: when);
* ``kozel:{chat}:top`` — a hash of the standings' counters, all time and per month, each field headed
  by its period (``all|…``, ``2026-12|…``): ``<player>|<figure>``, and ``p|<a>|<b>|n`` and ``…|won``
  for a pair of partners (one key, so a group's move to its supergroup takes it along);
* ``kozel:{chat}:names`` — each player's name as last seen;
* ``kozel:{u<id>}:counted`` and ``kozel:{u<id>}:stats`` — a person's counters across every chat
  (figures, ``streak``, ``best_streak``, ``partner|<key>|n`` and ``…|won``, ``name|<key>``), and the
  achievements earned (``ach|<id>``: when, the end of the match that earned it; bot/stats/achievements.py),
  and ``hints``: the 💡 hints the person was given (:meth:`StatsStore.count_hint`; not in the history,
  so a rebuild keeps it).

Finishing a match (:meth:`StatsStore.archive_match`) pushes its history entry and adds its figures to
the chat's counters in one script, only if its id was not counted yet, so a finish handled again (a
restart, a second process) counts once. Each person's counters are then one script each on their own
slot, idempotent the same way (by ``<chat>:<match id>``); a process killed between the two leaves the
person's part to the next time the finish is handled (every start archives each finished table again)
or to ``python -m bot.stats rebuild``. Achievements are set with ``HSETNX`` (:meth:`StatsStore.award`),
so each is earned once for ever whichever process, or how many times, handles a finish; only the
call that set it hears of it (and announces it).
"""

from __future__ import annotations

import json
from typing import Any

#: Match ids each chat (and person) remembers as counted; older ones drop off (the history keeps 100).
COUNTED_KEPT = 2000
#: The chat's keys of the standings (moved with the chat when a group becomes a supergroup).
CHAT_PARTS = ("counted", "top", "names")
#: The field of a person's stats hash counting the hints they were given.
HINTS = "hints"

# KEYS: counted, history, standings hash, names. ARGV: match id, when, entry JSON ('' to push nothing),
# history length, counted kept, month ('YYYY-MM'), n, then n (field, increment) pairs, then (player,
# name) pairs. Each counter is added under 'all|' and under the month.
_ARCHIVE = """
if redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1]) == 0 then return 0 end
local kept = tonumber(ARGV[5])
if redis.call('ZCARD', KEYS[1]) > kept then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -kept - 1) end
if ARGV[3] ~= '' then
  redis.call('LPUSH', KEYS[2], ARGV[3])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[4]) - 1)
end
local n = tonumber(ARGV[7])
for i = 8, 7 + 2 * n, 2 do
  redis.call('HINCRBY', KEYS[3], 'all|' .. ARGV[i], ARGV[i + 1])
  redis.call('HINCRBY', KEYS[3], ARGV[6] .. '|' .. ARGV[i], ARGV[i + 1])
end
for i = 8 + 2 * n, #ARGV, 2 do redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1]) end
return 1
"""
# KEYS: the person's counted set, their stats hash. ARGV: '<chat>:<match id>', when, won ('1'/'0'),
# counted kept, n, then n (field, increment) pairs, then (field, value) pairs to set.
_PERSON = """
if redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1]) == 0 then return 0 end
local kept = tonumber(ARGV[4])
if redis.call('ZCARD', KEYS[1]) > kept then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -kept - 1) end
local s = tonumber(redis.call('HGET', KEYS[2], 'streak') or '0')
if ARGV[3] == '1' then
  if s < 0 then s = 0 end
  s = s + 1
else
  if s > 0 then s = 0 end
  s = s - 1
end
redis.call('HSET', KEYS[2], 'streak', s)
local best = tonumber(redis.call('HGET', KEYS[2], 'best_streak') or '0')
if s > best then redis.call('HSET', KEYS[2], 'best_streak', s) end
local n = tonumber(ARGV[5])
for i = 6, 5 + 2 * n, 2 do redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1]) end
for i = 6 + 2 * n, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
return 1
"""

# KEYS: the person's stats hash. ARGV: when, then achievement ids. Returns the ids newly earned.
_AWARD = """
local new = {}
for i = 2, #ARGV do
  if redis.call('HSETNX', KEYS[1], 'ach|' .. ARGV[i], ARGV[1]) == 1 then table.insert(new, ARGV[i]) end
end
return new
"""


class StatsStore:
    """The standings' keys and scripts (see the module's notes); part of :class:`RedisStorage`."""

    def __init__(self, client: Any, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self._archive = client.register_script(_ARCHIVE)
        self._person = client.register_script(_PERSON)
        self._award = client.register_script(_AWARD)

    def chat_stats_key(self, chat_id: int, part: str) -> str:
        """A chat's standings key: ``counted``, ``top`` or ``names``."""
        return f"{self.prefix}kozel:{{{chat_id}}}:{part}"

    def person_stats_key(self, user_id: int, part: str) -> str:
        """A person's key: ``counted`` or ``stats``."""
        return f"{self.prefix}kozel:{{u{user_id}}}:{part}"

    async def archive(
        self,
        chat_id: int,
        history_key: str,
        match_id: str,
        *,
        at: float,
        month: str,
        entry: dict[str, Any] | None,
        counts: dict[str, int],
        names: dict[str, str],
        history_kept: int,
    ) -> bool:
        """Push ``entry`` and add ``counts`` to the chat's counters, unless ``match_id`` was counted."""
        args: list[str] = [
            match_id,
            repr(at),
            json.dumps(entry) if entry is not None else "",
            str(history_kept),
            str(COUNTED_KEPT),
            month,
            str(len(counts)),
        ]
        for k, v in counts.items():
            args += [k, str(v)]
        for k, name in names.items():
            args += [k, name]
        keys = [
            self.chat_stats_key(chat_id, "counted"),
            history_key,
            self.chat_stats_key(chat_id, "top"),
            self.chat_stats_key(chat_id, "names"),
        ]
        return bool(await self._archive(keys=keys, args=args))

    async def count_person(
        self,
        user_id: int,
        match_key: str,
        *,
        at: float,
        won: bool,
        counts: dict[str, int],
        values: dict[str, str],
    ) -> bool:
        """Add one match to a person's counters (and streak), unless ``match_key`` was counted."""
        args = [match_key, repr(at), "1" if won else "0", str(COUNTED_KEPT), str(len(counts))]
        for k, v in counts.items():
            args += [k, str(v)]
        for k, value in values.items():
            args += [k, value]
        keys = [self.person_stats_key(user_id, "counted"), self.person_stats_key(user_id, "stats")]
        return bool(await self._person(keys=keys, args=args))

    async def award(self, user_id: int, ids: list[str], *, at: float) -> list[str]:
        """Mark achievements ``ids`` earned by a person at ``at``; those not earned before."""
        if not ids:
            return []
        new = await self._award(keys=[self.person_stats_key(user_id, "stats")], args=[repr(at), *ids])
        return [i.decode() if isinstance(i, bytes) else str(i) for i in new]

    async def count_hint(self, user_id: int) -> int:
        """One more hint given to a person; how many now."""
        return int(await self.client.hincrby(self.person_stats_key(user_id, "stats"), HINTS, 1))

    async def standings(self, chat_id: int, period: str) -> tuple[dict[str, int], dict[str, str]]:
        """A chat's counters for ``period`` (``all`` or ``YYYY-MM``) and its players' names."""
        raw = await self.client.hgetall(self.chat_stats_key(chat_id, "top"))
        names = await self.client.hgetall(self.chat_stats_key(chat_id, "names"))
        head = f"{period}|"
        return {k[len(head) :]: int(v) for k, v in raw.items() if k.startswith(head)}, dict(names)

    async def personal(self, user_id: int) -> dict[str, str]:
        """A person's counters across every chat (numbers as text, names beside them)."""
        return dict(await self.client.hgetall(self.person_stats_key(user_id, "stats")))

    async def clear(self) -> int:
        """Delete every standings key (chats' and people's), for a rebuild; how many were deleted.
        A person's hints count is not in the history: it is kept."""
        n = 0
        for pattern in ("kozel:*:counted", "kozel:*:top", "kozel:*:names", "kozel:*:stats"):
            async for key in self.client.scan_iter(match=f"{self.prefix}{pattern}", count=500):
                hints = await self.client.hget(key, HINTS) if pattern.endswith(":stats") else None
                n += int(await self.client.delete(key))
                if hints is not None:
                    await self.client.hset(key, HINTS, hints)
        return n
