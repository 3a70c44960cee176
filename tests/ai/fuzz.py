"""Fuzz the bot players over whole matches: ``python -m tests.ai.fuzz SECONDS [FIRST_SEED] [PRESET]``.

Each seed picks a rule set (every one of ``tests/engine/test_properties.py`` and a few more option
mixes) and four players from ``easy``, ``random``, ``greedy`` and the tiny search levels, and plays up to
12 deals of a match. Before every play decision it checks that the seat's knowledge of the hidden cards
(:func:`bot.engine.ai.sample.knowledge`) admits the true hands — except on flip after a partner
returned a trump for a swap, which the knowledge reads, as a strong player returns, as a plain card —
and that every decision is legal. Prints each failing seed with its traceback, then the totals; exits
1 on any failure. With ``PRESET`` only the seeds whose rule set is of that preset are played. Not part
of ``make test`` (it runs for as long as it is given); the property tests cover the same ground on
fixed seeds."""

from __future__ import annotations

import random
import sys
import time
import traceback
from collections.abc import Callable

from bot.engine import ALL_CARDS, Deal, Match, Phase, Rules, view_for
from bot.engine.ai.base import Player, make_player
from bot.engine.ai.sample import knowledge
from tests.ai import players as tiny
from tests.engine.test_properties import RULESETS

EXTRA = [
    Rules.make("classic", deck=32, brag="mirror", matadors=True, must_trump_when_void=True),
    Rules.make("classic", deck=24, brag="big_pants", score_winners=True),
    Rules.make("classic", brag="fishing", trump_suit="C", jack_order="literal"),
    Rules.make("flip", trump_mode="declare", eggs_double=False),
    Rules.make("flip", trump_mode="jack_declares", pass_on_bad_turn=True),
]
ALL_RULES = RULESETS + EXTRA
LEVELS: list[Callable[[], Player]] = [
    lambda: make_player("easy"),
    lambda: make_player("random"),
    lambda: make_player("greedy"),
    tiny.tiny_medium,
    tiny.tiny_hard,
]
BITS = {str(c): c.bit for c in ALL_CARDS}


def check_knowledge(deal: Deal, seat: int) -> None:
    """The seat's knowledge admits the true hidden hands."""
    view = view_for(deal, seat)
    k = knowledge(view)
    t = deal.tables
    assert t is not None
    if not k.strict:
        return
    trump_back = any(
        BITS[m["swap_return"]] & t.trump_mask for m in deal.record()["moves"] if "swap_return" in m
    )
    ones = dict(k.one_trump)
    for h in range(4):
        if h != seat and not trump_back:
            outside = deal.hands[h] & ~(k.known[h] | k.allowed[h] | ones.get(h, 0))
            assert not outside, f"seat {seat} rules out seat {h}'s true cards"


def play_seed(seed: int) -> int:
    """Play one seed's match; the number of deals played."""
    rules = ALL_RULES[seed % len(ALL_RULES)]
    rng = random.Random(seed)
    players = [LEVELS[rng.randrange(len(LEVELS))]() for _ in range(4)]
    match = Match(rules, dealer=seed % 4)
    deals = 0
    while not match.over and deals < 12:
        deal = match.new_deal(rng=rng)
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            view = view_for(deal, seat)
            if view.phase is Phase.PLAY:
                check_knowledge(deal, seat)
            action = players[seat].decide(view, rng)
            assert action in view.legal, f"{players[seat].name} chose {action} not in {view.legal}"
            deal.apply(seat, action)
        assert deal.result is not None
        match.add(deal.result)
        deals += 1
    return deals


def main(argv: list[str]) -> int:
    deadline = time.monotonic() + float(argv[0])
    seed = first = int(argv[1]) if len(argv) > 1 else 1
    only = argv[2] if len(argv) > 2 else None
    deals = fails = 0
    while time.monotonic() < deadline:
        if only is not None and ALL_RULES[seed % len(ALL_RULES)].preset != only:
            seed += 1
            continue
        try:
            deals += play_seed(seed)
        except Exception:  # every failure is reported with its seed
            fails += 1
            print(f"FAIL seed {seed} ({ALL_RULES[seed % len(ALL_RULES)].preset})")
            traceback.print_exc(limit=8)
        seed += 1
    print(f"seeds {first}..{seed - 1}: {deals} deals, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
