"""Thinking under load: one decision from a level name, its budget shrunk by how long it waited.

A decision is taken wherever there is a free core — a process of this instance's pool or a worker
process on any machine (:mod:`bot.thinking`) — from plain values: the level's name, the seat's view
(views and actions pickle) and a seed. A job that waited in a queue thinks for less (:func:`haste`):
the search levels are anytime, so a shorter budget gives a weaker card sooner, never an illegal one.
"""

from __future__ import annotations

import dataclasses
import random

from bot.engine.actions import Action
from bot.engine.view import SeatView

from .base import Player, make_player
from .search import Budget, SearchPlayer

#: Seconds a bot decision may wait, queue and thought together, before its budget is gone.
MAX_WAIT = 4.0
#: The least share of its budget a decision keeps, however long it waited (the search's minimum
#: number of worlds applies on top of it).
MIN_HASTE = 0.05


def haste(waited: float, max_wait: float = MAX_WAIT) -> float:
    """The share of its budget a decision that waited ``waited`` seconds in a queue thinks for.

    The rule: ``1 - waited / max_wait``, at least :data:`MIN_HASTE` — a job taken at once thinks its
    whole budget, one that waited 2 s of 4 half of it. A longer queue makes every decision in it
    shorter, so the queue drains instead of growing: with ``n`` decisions ahead per worker, each of
    budget ``t``, a decision waits ``w`` = ``n·t·(1 - w/max_wait)``, i.e. ``w = n·t / (1 + n·t/max_wait)``,
    which stays below ``max_wait``.
    """
    return max(MIN_HASTE, min(1.0, 1.0 - waited / max_wait))


def scaled(budget: Budget, share: float) -> Budget:
    """``budget`` with its time (the target and the hard cap) cut to ``share`` of it."""
    if share >= 1.0:
        return budget
    return dataclasses.replace(budget, seconds=budget.seconds * share, limit=budget.limit * share)


def hastened(player: Player, share: float) -> Player:
    """``player`` thinking for ``share`` of its budget (a player with no budget is as it was)."""
    if share >= 1.0 or not isinstance(player, SearchPlayer):
        return player
    return type(player)(player.name, scaled(player.budget, share))


def decide(level: str, view: SeatView, seed: int, share: float = 1.0) -> Action:
    """``level``'s decision for ``view`` with an rng seeded by ``seed``, on ``share`` of its budget."""
    return hastened(make_player(level), share).decide(view, random.Random(seed))


__all__ = ["MAX_WAIT", "MIN_HASTE", "decide", "haste", "hastened", "scaled"]
