"""One bot decision as a job: what crosses a process or a machine, and the function a worker runs.

A job is the level's name, the seat's view, a seed and the Unix time it was submitted; the worker
measures how long it waited from that (across machines, clocks are assumed NTP-close) and thinks
for :func:`bot.engine.ai.pool.haste` of the level's budget. Views and actions cross as pickles:
the processes that read them are the bot's own, and Redis — which holds every table — is inside the
same trust boundary.
"""

from __future__ import annotations

import base64
import contextlib
import os
import pickle
import signal
import threading
import time
from typing import Any

from bot.engine.actions import Action
from bot.engine.ai.pool import decide, haste
from bot.engine.view import SeatView


def think(level: str, view: SeatView, seed: int, submitted: float) -> Action:
    """Take the decision of a job submitted at Unix time ``submitted`` (run in a worker)."""
    return decide(level, view, seed, haste(max(0.0, time.time() - submitted)))


def warm() -> int:
    """Import the search levels in a fresh worker, so its first decision is not slowed by it."""
    import bot.engine.ai.easy
    import bot.engine.ai.search  # noqa: F401

    return 0


#: How much lower a thinking process's CPU priority is than the bot's (``nice``): on a machine the
#: event loop shares with bot players, taps are answered first and the thinking takes what is left
#: (the haste rule then shortens it).
NICE = 10


def quiet(bot_pid: int) -> None:
    """Start a pool worker: lower its CPU priority (:data:`NICE`), leave Ctrl-C to the bot, which
    shuts the pool down (no traceback per worker), and end with the bot process ``bot_pid``: a bot
    killed outright (SIGKILL, the OOM killer) cannot shut its pool down, and the fork server's
    children would wait for work for ever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(NICE)
    threading.Thread(target=_outlive_not, args=(bot_pid,), name="bot-watch", daemon=True).start()


def _outlive_not(bot_pid: int, every: float = 1.0) -> None:
    while True:
        time.sleep(every)
        try:
            os.kill(bot_pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # the pid is another user's process now: the bot is gone
            os._exit(0)


def pack(value: Any) -> str:
    """A view or an action as text (a Redis Stream's field)."""
    return base64.b64encode(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)).decode()


def unpack(text: str | bytes) -> Any:
    """What :func:`pack` packed."""
    return pickle.loads(base64.b64decode(text))
