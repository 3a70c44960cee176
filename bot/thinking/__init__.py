"""Where bot players think: a pool of processes of this instance, or worker processes on any machine.

A :class:`Thinker` takes a level name, a seat's view and a seed and returns the decision; the
table's compare-and-set (:meth:`bot.table.bots.BotDriver`) applies it only if the table has not
moved meanwhile, so a decision taken twice is applied once. Three kinds (``BOT_THINKING``):

* ``processes`` (the default): a :class:`~concurrent.futures.ProcessPoolExecutor` of
  ``BOT_WORKERS`` processes (0: one per CPU) beside the event loop, which the search no longer holds
  under the GIL;
* ``threads``: two threads in the bot's process (the tests: no process start-up, same decisions);
* ``redis``: each decision a job in a Redis Stream that any ``python -m bot.worker`` process takes
  (:mod:`bot.thinking.stream`): thinking capacity grows by starting workers on any machine.

Every kind shrinks a decision's budget by how long it waited for a free worker
(:func:`bot.engine.ai.pool.haste`), so under load a bot moves within a few seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from bot.engine.actions import Action
from bot.engine.view import SeatView

T = TypeVar("T")


class Thinker(Protocol):
    """Takes bot decisions somewhere other than the event loop."""

    async def decide(self, level: str, view: SeatView, seed: int) -> Action:
        """``level``'s decision for ``view`` (an rng seeded by ``seed``)."""
        ...

    async def run(self, job: Callable[..., T], *args: Any) -> T:
        """``job(*args)`` off the event loop, where this instance thinks (a finished deal's analysis:
        :mod:`bot.tg.coach`); ``job`` and its arguments pickle (a module-level function)."""
        ...

    async def start(self) -> None:
        """Get ready (start processes, readers); called once before the first decision."""
        ...

    async def close(self) -> None:
        """Stop; decisions still waiting fail with :class:`asyncio.CancelledError`."""
        ...


__all__ = ["Thinker"]
