"""Thinking off the event loop: run a level's decision in a worker process.

The Telegram layer owns the executor (one ``concurrent.futures.ProcessPoolExecutor`` for the app) and
awaits ``loop.run_in_executor(pool, decide, level, view, seed)``, or calls :func:`decide_in_process`
and awaits the future with ``asyncio.wrap_future``; views and actions pickle, and a player is built in
the worker from its level name, so nothing but plain values crosses the process boundary.
"""

from __future__ import annotations

import random
from concurrent.futures import Executor, Future

from bot.engine.actions import Action
from bot.engine.view import SeatView

from .base import make_player


def decide(level: str, view: SeatView, seed: int) -> Action:
    """Build ``level``'s player and take its decision for ``view`` with an rng seeded by ``seed``."""
    return make_player(level).decide(view, random.Random(seed))


def decide_in_process(pool: Executor, level: str, view: SeatView, seed: int) -> Future[Action]:
    """Submit one decision to ``pool``; the future's result is one of ``view.legal``."""
    return pool.submit(decide, level, view, seed)
