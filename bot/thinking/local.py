"""Thinking in this instance: a pool of worker processes (or threads) beside the event loop."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, TypeVar

from bot.engine.actions import Action
from bot.engine.view import SeatView

from .job import quiet, think, warm

T = TypeVar("T")


def workers_for(setting: int) -> int:
    """How many processes ``BOT_WORKERS`` asks for: the setting, or one per CPU for 0."""
    return setting if setting > 0 else max(1, os.cpu_count() or 1)


_QUIET_TRACKER = "ignore:resource_tracker:UserWarning"


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes started afresh (``spawn``): forking the bot's process itself,
    with its event loop and its client threads, could copy a lock held mid-call into the child; a
    fork server shared by the pools of one process was seen to hang a pool's start in the tests."""
    # A bot killed outright cannot unregister its pool's semaphores: the resource tracker removes them
    # and warns on the bot's stderr, a line that is no JSON log line. Expected then, so left unsaid
    # (the option reaches the tracker and the fork server, which start with this process's -W flags).
    if _QUIET_TRACKER not in sys.warnoptions:
        sys.warnoptions.append(_QUIET_TRACKER)
    ctx = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=quiet, initargs=(os.getpid(),)
    )


class PoolThinker:
    """Decisions in an executor: ``processes`` (the default) or ``threads``.

    ``owned``: the thinker shuts the executor down on :meth:`close` (it built it).
    """

    def __init__(self, executor: Executor, *, workers: int, owned: bool = True) -> None:
        self.executor = executor
        self.workers = workers
        self.owned = owned

    @classmethod
    def processes(cls, workers: int) -> PoolThinker:
        """``workers`` processes of this instance."""
        return cls(process_pool(workers), workers=workers)

    @classmethod
    def threads(cls, workers: int = 2) -> PoolThinker:
        """``workers`` threads in the bot's own process."""
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bot-player")
        return cls(pool, workers=workers)

    async def start(self) -> None:
        """Start every worker now (a process's start-up would otherwise fall on a first decision)."""
        if isinstance(self.executor, ProcessPoolExecutor):
            loop = asyncio.get_running_loop()
            await asyncio.gather(*(loop.run_in_executor(self.executor, warm) for _ in range(self.workers)))

    async def decide(self, level: str, view: SeatView, seed: int) -> Action:
        """Think in the pool; the time spent waiting for a free worker shortens the thought."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, think, level, view, seed, time.time())

    async def run(self, job: Callable[..., T], *args: Any) -> T:
        """``job(*args)`` in the same pool as the decisions (a process of it, or a thread), beside them."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, job, *args)

    async def close(self) -> None:
        """Shut the pool down, if it is this thinker's, and wait for it off the event loop: a pool left
        shutting down (``wait=False``) races the interpreter's exit, whose hook then writes to the
        pool's closed wake-up pipe ("Exception ignored ... Bad file descriptor" on Ctrl-C)."""
        if self.owned:
            await asyncio.to_thread(self.executor.shutdown, True, cancel_futures=True)
