"""The seat-filler interface and the ``random`` baseline."""

from __future__ import annotations

import importlib
import random
from typing import Any, Protocol, runtime_checkable

from bot.engine.actions import Action, Play
from bot.engine.errors import KozelError
from bot.engine.view import SeatView


@runtime_checkable
class Player(Protocol):
    """Anything that can fill a seat: given what the seat sees, pick one of ``view.legal``."""

    name: str

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        """One of ``view.legal``; ``rng`` is the only source of randomness it may use."""
        ...


class RandomPlayer:
    """Uniformly random legal decisions: the baseline every level is measured against."""

    name = "random"

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        """A uniformly random legal action."""
        if not view.legal:
            raise KozelError(f"seat {view.seat} has no decision to take")
        return view.legal[int(rng.random() * len(view.legal))]


class GreedyPlayer:
    """The issue's yardstick, a twenty-line greedy player: take the trick with the cheapest card that
    beats it, else throw the cheapest card; lead the strongest plain card, else the weakest trump. Its
    other decisions are random. Arena only: it shows how much of a win share the cards alone give."""

    name = "greedy"

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        """The greedy card (any other decision: a random legal one)."""
        t = view.tables
        plays = [a for a in view.legal if isinstance(a, Play)]
        if not plays or t is None:
            return RandomPlayer().decide(view, rng)
        if not view.trick:
            plain = [a for a in plays if not t.is_trump(a.card)]
            if plain:
                return max(plain, key=lambda a: t.power[a.card.id])
            return min(plays, key=lambda a: t.power[a.card.id])
        led = t.eff[view.trick[0][1].id]
        best = view.trick[0][1]
        for _, c in view.trick[1:]:
            if t.beats(c, best, led):
                best = c
        winners = [a for a in plays if t.beats(a.card, best, led)]
        if winners:
            return min(winners, key=lambda a: t.power[a.card.id])
        return min(plays, key=lambda a: (a.card.points, t.power[a.card.id]))


_FACTORIES: dict[str, str] = {
    "random": "bot.engine.ai.base:RandomPlayer",
    "greedy": "bot.engine.ai.base:GreedyPlayer",
    "easy": "bot.engine.ai.easy:EasyPlayer",
    "medium": "bot.engine.ai.search:medium",
    "hard": "bot.engine.ai.search:hard",
    # The all-hands-open ceiling: it reads the whole deal, so only the arena may seat it.
    "cheat": "bot.engine.ai.search:cheat",
    # ``hard`` with learned world weights and the end game defused (docs/bots.md): arena only for now.
    "learned": "bot.engine.ai.learned:learned",
}
#: Level names in increasing strength (levels not yet built are absent from ``_FACTORIES``).
LEVELS = ("random", "easy", "medium", "hard")


def register(level: str, path: str) -> None:
    """Make ``level`` build the player at import path ``package.module:factory``."""
    _FACTORIES[level] = path


def make_player(level: str, **kwargs: Any) -> Player:
    """The player for a level name or an import path ``package.module:factory``."""
    path = _FACTORIES.get(level, level)
    if ":" not in path:
        known = ", ".join(sorted(_FACTORIES))
        raise KozelError(f"unknown player level {level!r} (known: {known}; or give package.module:factory)")
    module_name, _, attr = path.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as e:
        raise KozelError(f"cannot load player {level!r}: {e}") from None
    player = factory(**kwargs)
    if not isinstance(player, Player):
        raise KozelError(f"{path} did not build a player (it needs .name and .decide(view, rng))")
    return player
