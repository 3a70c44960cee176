"""Open-hand worlds for search: one concrete placement of every card, played by the play kernel.

A world is a :class:`~bot.engine.play.PlayState` — the same position a real deal plays on — so sampled
worlds, the cheating ceiling's true world and the solver play by the one set of play rules in
:mod:`bot.engine.play`. This module adds what search asks of a finished world: its worth.
"""

from __future__ import annotations

import random

from bot.engine.play import PAIR_OF, QC_BIT, PlayRules, PlayState, play_out
from bot.engine.seats import N_SEATS

World = PlayState
Static = PlayRules

__all__ = [
    "N_SEATS",
    "PAIR_OF",
    "POINT_WEIGHT",
    "QC_BIT",
    "TRICK_WEIGHT",
    "Static",
    "World",
    "bits_of",
    "rollout",
    "worth",
]

#: Card points count this much (in penalty points per card point) in a play-out's score: they steer the
#: search where every card reaches the same penalty, and cut the play-outs' noise (a control variate).
POINT_WEIGHT = 0.02
#: Where only tricks score (``tricks``), tricks are the tie-break instead: this much per trick, about
#: what a trick's share of the card points (120 / 9) counts for elsewhere.
TRICK_WEIGHT = 0.25


def worth(w: World) -> float:
    """A finished world's worth to pair A: its penalty-point value, card points (tricks, where only
    tricks score) as a small tie-break."""
    if w.s.by_tricks:
        return w.value0() + TRICK_WEIGHT * (w.won[0] - w.won[1])
    return w.value0() + POINT_WEIGHT * (w.pts[0] - w.pts[1])


def rollout(w: World, rng: random.Random) -> float:
    """Play ``w`` out with uniformly random legal cards (on a copy); its :func:`worth`."""
    return worth(play_out(w.copy(), None, rng.random))


def bits_of(mask: int) -> list[int]:
    """The single-card bits of ``mask``, lowest id first."""
    out = []
    while mask:
        b = mask & -mask
        out.append(b)
        mask ^= b
    return out
