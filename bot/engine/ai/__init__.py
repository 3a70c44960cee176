"""Bot players: one interface for every seat-filler, from ``random`` up.

A player sees only a :class:`bot.engine.view.SeatView` (never the deal itself) and returns one of
``view.legal``. Levels are named (``make_player("easy")``) or given as an import path
``package.module:factory`` of a callable returning an object with the same interface.
"""

from bot.engine.ai.base import LEVELS, Player, RandomPlayer, make_player

__all__ = ["LEVELS", "Player", "RandomPlayer", "make_player"]
