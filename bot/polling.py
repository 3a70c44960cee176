"""Long polling that confirms an update to Telegram only once it has been handled.

python-telegram-bot's own polling queues a batch and asks for the next one at once, which tells
Telegram the batch was received: a process killed while handling it loses those updates (a tap that
does nothing). Here the offset sent with ``getUpdates`` is the oldest update still being handled, so
Telegram keeps offering every update that is not finished, and a new process gets it again after a
crash. Updates offered again while this process still handles them are skipped here; across a crash
the update's claim in Redis (``Storage.claim_update``) is taken over, since only one process can poll a
bot at a time (Telegram answers a second poller with 409 Conflict). Updates are handled concurrently,
like the Application's own ``concurrent_updates``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Any

from telegram import Update
from telegram.error import Conflict, InvalidToken, NetworkError, RetryAfter, TelegramError
from telegram.ext import Application

_LOG = logging.getLogger(__name__)
AnyApplication = Application[Any, Any, Any, Any, Any, Any]
#: ``bot_data`` flag the update claim reads: this process is the only one receiving updates.
SOLE_CONSUMER = "sole_consumer"


class Poller:
    """Fetch updates with ``getUpdates`` and hand each to ``application.process_update`` once."""

    def __init__(self, application: AnyApplication, *, timeout: int = 10, max_in_flight: int = 256) -> None:
        self.application = application
        self.timeout = timeout
        self.max_in_flight = max_in_flight
        #: Updates being handled, by id.
        self.in_flight: dict[int, asyncio.Task[None]] = {}
        #: The highest update id taken so far (handled or being handled).
        self.last_seen: int | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def offset(self) -> int | None:
        """The ``getUpdates`` offset: the oldest update not yet handled, else the one after the last."""
        if self.in_flight:
            return min(self.in_flight)
        return None if self.last_seen is None else self.last_seen + 1

    def stop(self) -> None:
        """Ask :meth:`run` to return once the current poll ends."""
        self._stop.set()

    def start(self) -> asyncio.Task[None]:
        """Run :meth:`run` in a task (the application must be started)."""
        self._task = asyncio.create_task(self.run(), name="poller")
        return self._task

    async def close(self) -> None:
        """Stop the task :meth:`start` made and wait for it (and the updates it is handling)."""
        self.stop()
        if self._task is not None:
            await self._task

    async def run(self) -> None:
        """Poll until :meth:`stop`, then wait for the updates being handled."""
        self.application.bot_data[SOLE_CONSUMER] = True
        backoff = 1.0
        first = True
        while not self._stop.is_set():
            try:
                # The first poll returns at once: what is waiting, and a sign of life to watchers.
                updates = await self._fetch(0 if first else self.timeout)
                first = False
            except (InvalidToken, Conflict):
                raise
            except RetryAfter as e:
                after = e.retry_after
                await self._sleep(after if isinstance(after, int | float) else after.total_seconds())
                continue
            except (NetworkError, TelegramError) as e:
                _LOG.warning("getUpdates failed (%s); again in %.0f s", e, backoff)
                await self._sleep(backoff)
                backoff = min(backoff * 2, 30.0)
                continue
            backoff = 1.0
            fresh = [u for u in updates if isinstance(u, Update)]  # only the new ones are parsed
            for update in fresh:
                self._start(update)
            if updates and not fresh and self.in_flight:
                # Only updates still being handled came back: wait for one to finish rather than
                # asking again at once (Telegram answers at once while any update is unconfirmed).
                await asyncio.wait(
                    set(self.in_flight.values()), timeout=0.5, return_when=asyncio.FIRST_COMPLETED
                )
            while len(self.in_flight) >= self.max_in_flight and not self._stop.is_set():
                await asyncio.wait(set(self.in_flight.values()), return_when=asyncio.FIRST_COMPLETED)
        if self.in_flight:
            await asyncio.wait(set(self.in_flight.values()))
        if self.last_seen is not None:
            # Confirm what was handled, so the next process does not see it again.
            with contextlib.suppress(TelegramError):
                await self.application.bot.get_updates(offset=self.last_seen + 1, timeout=0, limit=1)

    def _is_new(self, update_id: int) -> bool:
        # Ids only grow: one at or below the last taken and not in flight has been handled.
        if update_id in self.in_flight:
            return False
        return self.last_seen is None or update_id > self.last_seen

    def _start(self, update: Update) -> None:
        uid = update.update_id
        self.last_seen = uid if self.last_seen is None else max(self.last_seen, uid)
        task = asyncio.create_task(self._handle(update), name=f"update-{uid}")
        self.in_flight[uid] = task

    async def _handle(self, update: Update) -> None:
        try:
            await self.application.process_update(update)
        except Exception:  # process_update hands errors to the error handlers; this is a last guard
            _LOG.exception("update %s was not handled", update.update_id)
        finally:
            self.in_flight.pop(update.update_id, None)

    async def _fetch(self, timeout: int) -> list[Update | int]:
        """The updates offered: parsed when new, only their ids when this process is handling them.

        The offset is the oldest update in flight, so every poll is answered with all the updates
        still being handled too; parsing those into objects again, only to skip them, would cost
        more CPU than the new ones.
        """
        bot = self.application.bot
        data = {"offset": self.offset, "timeout": timeout, "allowed_updates": list(Update.ALL_TYPES)}
        fetch = asyncio.ensure_future(bot._post("getUpdates", data, read_timeout=timeout + 10))
        stopped = asyncio.ensure_future(self._stop.wait())
        done, _ = await asyncio.wait({fetch, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if fetch in done:
            stopped.cancel()
            out: list[Update | int] = []
            for raw in fetch.result() or ():
                uid = raw.get("update_id")
                if not isinstance(uid, int):
                    continue
                out.append(Update.de_json(raw, bot) if self._is_new(uid) else uid)
            return out
        fetch.cancel()
        with contextlib.suppress(asyncio.CancelledError, TelegramError):
            await fetch
        return []

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), timeout=seconds)


async def serve_polling(application: AnyApplication, *, timeout: int = 10) -> None:
    """Run ``application`` with a :class:`Poller` until SIGINT or SIGTERM."""
    poller = Poller(application, timeout=timeout)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, poller.stop)
    await application.initialize()
    # A webhook left set would make getUpdates fail with a Conflict.
    await application.bot.delete_webhook(drop_pending_updates=False)
    await application.start()
    try:
        await poller.run()
    finally:
        await application.stop()
        await application.shutdown()
