"""Arena-only variants of the ``learned`` level's play-out, kept to reproduce docs/bots.md's figures.

``learned`` draws every seat's card from the learned policy (:func:`bot.engine.ai.learned.learned_rollout`).
Two other readings were measured against ``hard`` on the same decks and lost to it:

* ``experiments.learned.playouts:likeliest`` — every seat plays the policy's likeliest card;
* ``experiments.learned.playouts:foes`` — the opponents play the policy's likeliest card, the deciding
  side the rule player's trick policy with every hand of the world open (``hard``'s play-out).

``experiments.learned.playouts:rule`` is ``learned`` as it was before its play-out: the rule player's
trick policy plays out, as in ``hard``.

Use them wherever the arena takes a level: ``python -m bot.measure.arena --a
experiments.learned.playouts:likeliest --b hard --preset flip ...``.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from bot.engine.actions import Action
from bot.engine.ai.features import card_features
from bot.engine.ai.learned import DEFUSED, LEARNED, LearnedPlayer, gone_in
from bot.engine.ai.trick import finish, lead
from bot.engine.ai.world import World, bits_of, worth
from bot.engine.view import SeatView


def _rollout(
    w: World, rng: random.Random, careless: int | None, weights: Sequence[float], mode: str, mine: int
) -> float:
    """``learned_rollout`` with the seats' card chosen by ``mode``: the policy's likeliest
    (``likeliest``), or so for the opponents and by the rule player's open-hand trick policy for side
    ``mine`` (``foes``)."""
    w = w.copy()
    s = w.s
    pair_of = s.pair_of
    rnd = rng.random
    gone = gone_in(w)
    out: list[int] = []
    while not w.over:
        m = w.mask
        seat = w.seat
        if m & (m - 1) == 0:
            b = m
        elif pair_of[seat] == careless:
            ms = bits_of(m)
            b = ms[int(rnd() * len(ms))]
        elif mode == "foes" and pair_of[seat] == mine:
            if not w.trick:
                b = lead(s, w.hands, seat, m, w.stacks)
            else:
                out.clear()
                finish(s, w.hands, w.trick, s.orders[w.leader][len(w.trick) :], None, out, w.stacks)
                b = out[0]
        else:
            rows = card_features(s, seat, w.hands[seat], m, w.trick, gone)
            scores = [sum(a * x for a, x in zip(weights, f, strict=True)) for _, f in rows]
            i = max(range(len(scores)), key=scores.__getitem__)
            b = rows[i][0]
        gone |= b
        w.play(b)
    return worth(w)


class _Variant(LearnedPlayer):
    mode = "likeliest"
    _seat = 0

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        self._seat = view.seat
        return super().decide(view, rng)

    def playout(self, w: World, r: random.Random, careless: tuple[int, float] | None) -> float:
        weights = self.policy.family(w.s.rules.preset)
        side = w.s.pair_of[self._seat]
        return _rollout(w, r, None if careless is None else careless[0], weights, self.mode, side)


class _Foes(_Variant):
    mode = "foes"


def likeliest() -> LearnedPlayer:
    """``learned`` with every seat playing the policy's likeliest card in the play-outs."""
    return _Variant("learned-likeliest", LEARNED, DEFUSED)


def foes() -> LearnedPlayer:
    """``learned`` with the opponents playing the policy's likeliest card in the play-outs, its own side
    the rule player's trick policy."""
    return _Foes("learned-foes", LEARNED, DEFUSED)


def rule() -> LearnedPlayer:
    """``learned`` playing out by the rule player's trick policy, as ``hard`` does."""
    return LearnedPlayer("learned-rule-playout", LEARNED, dataclasses.replace(DEFUSED, playouts=False))
