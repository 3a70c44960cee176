"""Decisions as jobs in a Redis Stream, taken by worker processes on any machine (``python -m bot.worker``).

An instance adds each decision to the jobs stream (``XADD``) and waits for its answer on a reply
stream of its own, which one reader task follows (``XREAD BLOCK``). Workers read the jobs as one
consumer group (``XREADGROUP``), so each job goes to one worker; a worker answers, then acknowledges
and deletes the job (``XACK``, ``XDEL``). A worker that dies holding a job leaves it pending: any
other worker claims it once it has been idle :data:`CLAIM_AFTER` seconds (``XAUTOCLAIM``) and thinks
it again, so no decision is lost; one answered twice is applied once (the first answer resolves
the wait, and the table's compare-and-set refuses a move made on a state that moved on). A worker
that finds the stream or its group gone (deleted, or lost with a Redis that failed over) creates
both again.

An instance waits :data:`TIMEOUT` seconds for an answer (no worker running, say), then decides in
its own threads instead and logs it; a worker drops a job whose instance stopped waiting.

On a Redis Cluster the jobs stream and its group are one key (hash tag ``{think}``), so one node
carries the job traffic — a few hundred bytes per decision; each instance's replies have a tag of
their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from redis.exceptions import ResponseError

from bot.engine.actions import Action
from bot.engine.view import SeatView

from . import Thinker
from .job import pack, unpack

_LOG = logging.getLogger(__name__)
T = TypeVar("T")

GROUP = "thinkers"
#: Seconds a job may sit with a worker before another worker takes it over (the worker died): more
#: than the longest decision (``hard``'s hard cap is 0.85 s).
CLAIM_AFTER = 3.0
#: Seconds an instance waits for a worker's answer before it thinks itself.
TIMEOUT = 15.0
#: Answers kept on a reply stream that nobody reads any more (its instance stopped): seconds.
REPLY_TTL = 600
#: Milliseconds the reply reader blocks in one ``XREAD``; closing waits for the read in hand.
READ_BLOCK = 1000


def jobs_key(prefix: str = "") -> str:
    """The stream every instance adds its decisions to."""
    return f"{prefix}kozel:{{think}}:jobs"


def reply_key(prefix: str, instance: str) -> str:
    """The stream an instance's answers come back on."""
    return f"{prefix}kozel:{{think:{instance}}}:done"


async def ensure_group(client: Any, prefix: str = "") -> None:
    """Create the workers' consumer group (and the stream) unless it exists."""
    try:
        await client.xgroup_create(jobs_key(prefix), GROUP, id="0", mkstream=True)
    except ResponseError as e:
        if "BUSYGROUP" not in str(e):
            raise


class StreamThinker:
    """Decisions as jobs for ``python -m bot.worker`` processes; ``fallback`` thinks when none answers."""

    def __init__(self, client: Any, fallback: Thinker, *, prefix: str = "", timeout: float = TIMEOUT) -> None:
        self.client = client
        self.fallback = fallback
        self.prefix = prefix
        self.timeout = timeout
        self.instance = uuid.uuid4().hex[:16]
        self.jobs = jobs_key(prefix)
        self.replies = reply_key(prefix, self.instance)
        self._waiting: dict[str, asyncio.Future[Action]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closing = False
        #: Decisions no worker answered in time (thought by ``fallback``).
        self.fell_back = 0

    async def start(self) -> None:
        """Create the group if needed and start following this instance's replies."""
        await ensure_group(self.client, self.prefix)
        await self.fallback.start()
        if self._reader is None:
            self._reader = asyncio.create_task(self._read(), name="thinking replies")

    async def decide(self, level: str, view: SeatView, seed: int) -> Action:
        """Add the job, wait for a worker's answer (or think here after :attr:`timeout`).

        Storage that cannot take the job raises its error (:mod:`bot.storage.errors`): the bot
        player decides again once it is back (:func:`bot.table.bots.decide`).
        """
        if self._reader is None:
            await self.start()
        job = uuid.uuid4().hex
        answer: asyncio.Future[Action] = asyncio.get_running_loop().create_future()
        self._waiting[job] = answer
        now = time.time()
        fields = {
            "job": job, "level": level, "view": pack(view), "seed": str(seed),
            "at": repr(now), "until": repr(now + self.timeout), "reply": self.replies,
        }  # fmt: skip
        try:
            await self.client.xadd(self.jobs, fields)
            return await asyncio.wait_for(asyncio.shield(answer), self.timeout)
        except TimeoutError:
            self.fell_back += 1
            _LOG.warning("no worker answered a %s decision in %.0f s; thinking here", level, self.timeout)
            return await self.fallback.decide(level, view, seed)
        finally:
            self._waiting.pop(job, None)

    async def run(self, job: Callable[..., T], *args: Any) -> T:
        """``job(*args)`` in this instance's fallback pool: a finished deal's analysis is rare and
        seconds long, so it takes no worker's stream (whose jobs are decisions a table waits for)."""
        return await self.fallback.run(job, *args)

    async def _read(self) -> None:
        last = "0-0"
        while not self._closing:
            try:
                got = await self.client.xread({self.replies: last}, count=100, block=READ_BLOCK)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a Redis restart or failover: keep following once it is back
                _LOG.warning("reading bot decisions failed: %s", e)
                await asyncio.sleep(0.5)
                continue
            seen: list[str] = []
            for _key, entries in got or ():
                for entry_id, fields in entries:
                    last = entry_id
                    seen.append(entry_id)
                    answer = self._waiting.get(fields.get("job", ""))
                    if answer is not None and not answer.done():
                        answer.set_result(unpack(fields["action"]))
            if seen:
                with contextlib.suppress(Exception):
                    await self.client.xdel(self.replies, *seen)

    async def close(self) -> None:
        """Stop following replies; decisions still waiting are cancelled.

        The reader ends after the read in hand (at most :data:`READ_BLOCK` ms) rather than being
        cancelled inside it: a blocking command cancelled mid-read can leave its connection waiting
        for good (redis-py issues #2579, #2665). It is cancelled only if it does not end in time, and
        nothing here waits longer than a few seconds.
        """
        reader, self._reader = self._reader, None
        if reader is not None:
            self._closing = True
            try:
                await asyncio.wait_for(asyncio.shield(reader), READ_BLOCK / 1000 + 2.0)
            except TimeoutError:
                reader.cancel()
            self._closing = False
        for answer in self._waiting.values():
            answer.cancel()
        await self.fallback.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.delete(self.replies), 5.0)


__all__ = ["CLAIM_AFTER", "GROUP", "TIMEOUT", "StreamThinker", "ensure_group", "jobs_key", "reply_key"]
