"""Playing a position out to the end of the deal: one loop, the choice of card a parameter.

A chooser is called only when the seat to play has a choice (more than one legal card): random legal
cards (:func:`random_choice`), the rule player's trick policy, careless opponents — each is a chooser,
and the loop that drives them is :func:`play_out`.
"""

from __future__ import annotations

from collections.abc import Callable
from math import floor

from .kernel import PlayState

#: ``choose(state, seat, legal)``: the bit of the card ``seat`` plays from ``legal`` (two cards or more).
Chooser = Callable[[PlayState, int, int], int]


def nth_card(m: int, j: int) -> int:
    """The bit of the ``j``-th card of mask ``m`` (lowest id first)."""
    while j:
        m &= m - 1
        j -= 1
    return m & -m


def random_choice(rnd: Callable[[], float]) -> Chooser:
    """A uniformly random legal card: the j-th in card-id order, ``j = int(rnd() * n)`` — the convention
    every random player keeps, so the same random numbers give the same cards everywhere."""

    def choose(state: PlayState, seat: int, m: int) -> int:
        j = floor(rnd() * m.bit_count())
        while j:
            m &= m - 1
            j -= 1
        return m & -m

    return choose


def play_out(
    w: PlayState, choose: Chooser | None = None, rnd: Callable[[], float] | None = None
) -> PlayState:
    """Play ``w`` to the end of the deal in place and return it: ``choose`` picks whenever the seat to
    play has a choice; without one, the choice is random (as :func:`random_choice` ``(rnd)`` picks,
    written out here: a random play-out is the search's inner loop)."""
    play = w.play
    if choose is None:
        assert rnd is not None, "a random play-out needs rnd"
        while not w.over:
            m = w.mask
            n = m.bit_count()
            if n > 1:
                j = floor(rnd() * n)  # int(), as random_choice has it (never negative), but cheaper
                while j:
                    m &= m - 1
                    j -= 1
                m &= -m
            play(m)
    else:
        while not w.over:
            m = w.mask
            play(choose(w, w.seat, m) if m & (m - 1) else m)
    return w
