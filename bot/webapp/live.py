"""Every saved version of a table reaches the open pages, whichever instance saved it.

Each save is published on one Redis Pub/Sub channel (``<prefix>kozel:live``: on a Redis Cluster a
plain ``PUBLISH`` reaches every node, so one subscription per instance hears them all) as
``chat:thread:version:table``; each instance keeps one subscription and wakes the pages it serves
for that table (its own saves wake its pages at once, with the snapshot saved, and their echo is
ignored). A message lost to a failover costs a page nothing but seconds: every page also checks the
stored version every :data:`RECHECK` seconds, and a page always receives the whole state, so one
that missed versions (or whose phone slept) catches up with no gap and no double.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import RedisError

from bot.table.core import TableKey
from bot.table.usecase import Snapshot

__all__ = ["LiveHub", "Watched"]

_LOG = logging.getLogger(__name__)
#: Seconds between a page's checks of the stored version (in case a published message was lost).
RECHECK = 5.0
#: Seconds to wait before subscribing again after the subscription failed.
RETRY = 1.0
#: Seconds a page counts as open after its last sign of life (it renews every :data:`RECHECK`).
PRESENT_FOR = 3 * RECHECK


@dataclass
class Watched:
    """This instance's pages of one table: their events, how often they were woken, and the newest read
    of the table they share (``(wakes when it began, its future)``: one read a wake, however many pages)."""

    pages: set[asyncio.Event] = field(default_factory=set)
    wakes: int = 0
    read: tuple[int, asyncio.Future[Any]] | None = None
    #: The newest snapshot this instance saved of the table (``(wakes then, it)``): its pages are
    #: shown it without reading the table back, and the echo of its own publish wakes nobody.
    saved: tuple[int, Snapshot] | None = None

    def has(self, table_id: str, version: int) -> bool:
        """Whether this instance saved that version of the table, or a newer one."""
        saved = self.saved[1].table if self.saved is not None else None
        return saved is not None and saved.table_id == table_id and saved.version >= version


class LiveHub:
    """Publishes saved versions and wakes this instance's pages (a renderer of the table use case)."""

    def __init__(self, client: Any, prefix: str = "") -> None:
        self.client = client
        self.prefix = prefix
        self.channel = f"{prefix}kozel:live"
        self._pages: dict[TableKey, Watched] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._listener: asyncio.Task[None] | None = None
        self.published = 0
        self.heard = 0

    def show(self, snap: Snapshot) -> None:
        """Publish the version just saved (the use case hands every snapshot to its renderers), and
        wake this instance's pages of the table with it at once."""
        table = snap.table
        watched = self._pages.get((table.chat_id, table.thread_id))
        if watched is not None and not watched.has(table.table_id, table.version):
            watched.saved = (watched.wakes + 1, snap)
            self.wake((table.chat_id, table.thread_id))
        message = f"{table.chat_id}:{table.thread_id or 0}:{table.version}:{table.table_id}"
        task = asyncio.create_task(self._publish(message))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _publish(self, message: str) -> None:
        try:
            await self.client.publish(self.channel, message)
            self.published += 1
        except (RedisError, OSError) as e:  # the pages catch up at their next check
            _LOG.warning("live table: could not publish %s: %s", message, e)

    def _open_key(self, key: TableKey) -> str:
        chat, thread = key
        return f"{self.prefix}kozel:{{{chat}}}:live:{thread or 0}:open"

    async def here(self, key: TableKey, user_id: int, now: float) -> None:
        """``user_id`` has the table's page open (renewed by each open page every few seconds)."""
        open_key = self._open_key(key)
        pipe = self.client.pipeline(transaction=False)
        pipe.hset(open_key, str(user_id), str(now + PRESENT_FOR))
        pipe.expire(open_key, int(PRESENT_FOR) + 1)
        await pipe.execute()

    async def left(self, key: TableKey, user_id: int) -> None:
        """``user_id`` closed the page (or it went quiet)."""
        await self.client.hdel(self._open_key(key), str(user_id))

    async def present(self, key: TableKey, now: float) -> frozenset[int]:
        """Who has the table's page open, on any instance."""
        found = await self.client.hgetall(self._open_key(key))
        out = set()
        for user, until in found.items():
            try:
                if float(until) >= now:
                    out.add(int(user))
            except ValueError:
                continue
        return frozenset(out)

    def wake(self, key: TableKey) -> None:
        """Wake this instance's pages of one table."""
        watched = self._pages.get(key)
        if watched is not None:
            watched.wakes += 1
            for event in watched.pages:
                event.set()

    def watched(self, key: TableKey) -> Watched | None:
        """This instance's pages of one table, if any are open."""
        return self._pages.get(key)

    @contextlib.asynccontextmanager
    async def watch(self, key: TableKey) -> Any:
        """An event set whenever the table may have changed, for as long as the page is open."""
        self.start()
        event = asyncio.Event()
        self._pages.setdefault(key, Watched()).pages.add(event)
        try:
            yield event
        finally:
            watched = self._pages.get(key)
            if watched is not None:
                watched.pages.discard(event)
                if not watched.pages:
                    del self._pages[key]

    @property
    def open_pages(self) -> int:
        """Pages this instance serves now."""
        return sum(len(w.pages) for w in self._pages.values())

    def start(self) -> None:
        """Subscribe (once; again after a failure)."""
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen())

    async def _listen(self) -> None:
        while True:
            pubsub = self.client.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=RECHECK)
                    if message is None:
                        continue
                    self.heard += 1
                    data = message["data"]
                    text = data.decode() if isinstance(data, bytes) else str(data)
                    chat, thread, version, table_id = text.split(":")
                    key = (int(chat), int(thread) or None)
                    watched = self._pages.get(key)
                    if watched is not None and not watched.has(table_id, int(version)):  # not its own echo
                        self.wake(key)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError, ValueError) as e:
                _LOG.warning("live table: subscription lost (%s); again in %.0f s", e, RETRY)
                for key in list(self._pages):
                    self.wake(key)  # the pages read the stored version meanwhile
                await asyncio.sleep(RETRY)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def close(self) -> None:
        """Stop listening and let the publishes under way finish."""
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
