"""Fuzz the bot players over whole matches: ``python -m tests.ai.fuzz SECONDS [FIRST_SEED] [--brag KIND]
[--preset PRESET]``.

Each seed picks a rule set (every one of ``tests/engine/test_properties.py`` and a few more option
mixes, 3-person ``sochi`` among them) and a player per seat from ``easy``, ``random``, ``greedy`` and
the tiny search levels, and plays up to 12 deals of a match. Before every play decision (and at
``sochi``'s discard) it checks that the seat's knowledge of the hidden cards
(:func:`bot.engine.ai.knowledge.knowledge`) admits the true hands (the trumps counted in classic's
mirror and fishing too) — except on flip after a partner returned a trump for a swap, which the
knowledge reads, as a strong player returns, as a plain card — and that every decision is legal.
Prints each failing seed with its traceback, then the totals; exits 1 on any failure. ``--brag
mirror`` (or any brag kind) keeps only the classic rule sets that can brag that way (``brag`` or
``brag_choice``); ``--preset tricks`` (or any preset) only the rule sets of that preset. Not part of
``make test`` (it runs for as long as it is given); the property tests cover the same ground on
fixed seeds."""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from collections.abc import Callable

from bot.engine import ALL_CARDS, BragKind, Deal, Match, Phase, Rules, view_for
from bot.engine.ai.base import Player, make_player
from bot.engine.ai.knowledge import knowledge
from bot.engine.rules import PRESETS, ClassicOptions
from tests.ai import players as tiny
from tests.engine.test_properties import RULESETS

EXTRA = [
    Rules.make("classic", deck=32, brag="mirror", matadors=True, must_trump_when_void=True),
    Rules.make("classic", deck=24, brag="big_pants", score_winners=True),
    Rules.make("classic", brag="fishing", trump_suit="C", jack_order="literal"),
    Rules.make("flip", trump_mode="declare", eggs_double=False),
    Rules.make("flip", trump_mode="jack_declares", pass_on_bad_turn=True),
    Rules.make("flip", deck=36, trump_mode="declare", eggs_double=False),
    Rules.make("flip", deck=36, trump_mode="jack_declares", must_trump_when_void=False),
    # Three people (the property tests' rule sets are all for four seats).
    Rules.make("sochi"),
    Rules.make("sochi", brag_rotation=["mirror", "fishing"]),
]
ALL_RULES = RULESETS + EXTRA
LEVELS: list[Callable[[], Player]] = [
    lambda: make_player("easy"),
    lambda: make_player("random"),
    lambda: make_player("greedy"),
    tiny.tiny_medium,
    tiny.tiny_hard,
    tiny.tiny_learned,
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
    for h in range(deal.rules.seats):
        if h != seat and not trump_back:
            outside = deal.hands[h] & ~(k.known[h] | k.allowed[h] | ones.get(h, 0))
            assert not outside, f"seat {seat} rules out seat {h}'s true cards"
    for h, n, m in k.min_trumps:
        assert (deal.hands[h] & m).bit_count() >= n, f"seat {seat} asks seat {h} for {n} trumps too many"


def brags(rules: Rules, kind: str) -> bool:
    """Whether ``rules`` can brag ``kind`` (classic's ``brag`` or one of ``brag_choice``)."""
    opts = rules.options
    if not isinstance(opts, ClassicOptions):
        return False
    return opts.brag.value == kind if not opts.brag_choice else kind in {k.value for k in opts.brag_choice}


def play_seed(seed: int, rule_sets: list[Rules] = ALL_RULES) -> int:
    """Play one seed's match (of ``rule_sets[seed % len]``); the number of deals played."""
    rules = rule_sets[seed % len(rule_sets)]
    rng = random.Random(seed)
    players = [LEVELS[rng.randrange(len(LEVELS))]() for _ in range(rules.seats)]
    match = Match(rules, dealer=seed % rules.seats)
    deals = 0
    while not match.over and deals < 12:
        deal = match.new_deal(rng=rng)
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            view = view_for(deal, seat)
            if view.phase in (Phase.PLAY, Phase.DISCARD):
                check_knowledge(deal, seat)
            action = players[seat].decide(view, rng)
            assert action in view.legal, f"{players[seat].name} chose {action} not in {view.legal}"
            deal.apply(seat, action)
        assert deal.result is not None
        match.add(deal.result)
        deals += 1
    return deals


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.ai.fuzz")
    parser.add_argument("seconds", type=float)
    parser.add_argument("first_seed", type=int, nargs="?", default=1)
    parser.add_argument("--brag", choices=[k.value for k in BragKind], help="only rule sets with this brag")
    parser.add_argument("--preset", choices=list(PRESETS), help="only rule sets of this preset")
    args = parser.parse_args(argv)
    rule_sets = [
        r
        for r in ALL_RULES
        if (args.brag is None or brags(r, args.brag)) and (args.preset is None or r.preset == args.preset)
    ]
    if not rule_sets:
        parser.error("no rule set has that brag and preset")
    deadline = time.monotonic() + args.seconds
    seed = first = args.first_seed
    deals = fails = 0
    while time.monotonic() < deadline:
        try:
            deals += play_seed(seed, rule_sets)
        except Exception:  # every failure is reported with its seed
            fails += 1
            print(f"FAIL seed {seed} ({rule_sets[seed % len(rule_sets)].to_json()})")
            traceback.print_exc(limit=8)
        seed += 1
    print(f"seeds {first}..{seed - 1}: {deals} deals, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
