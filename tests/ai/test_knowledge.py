"""What a seat knows of the hidden cards (``bot.engine.ai.knowledge.knowledge``) never rules out the truth.

Flip, with its swap phase, has its own tests (``test_swap_inference.py``); here every other rule set."""

from __future__ import annotations

import random

import pytest

from bot.engine import PARTNER_OF, Rules, view_for
from bot.engine.ai.knowledge import knowledge
from bot.engine.ai.sample import sample_world
from tests.ai.deals import play_turns
from tests.engine.test_properties import IDS, RULESETS

OTHERS = [(r, i) for r, i in zip(RULESETS, IDS, strict=True) if r.preset != "flip"]


@pytest.mark.parametrize("rules", [r for r, _ in OTHERS], ids=[i for _, i in OTHERS])
def test_the_true_hands_lie_within_every_seats_knowledge(rules: Rules) -> None:
    rng = random.Random(8)
    checked = 0
    for _, deal, seat in play_turns(rules, rng, 150, 0.5):
        k = knowledge(view_for(deal, seat))
        assert k.strict
        for h in range(4):
            if h != seat:
                hidden = deal.hands[h] & ~k.known[h]
                assert hidden & ~k.allowed[h] == 0, (h, deal.record())
        checked += 1
    assert checked > 500


def test_draw_last_card_swap_moves_each_seats_voids_to_the_other() -> None:
    """Draw's last trick may start with the leader's lone trump and his partner's lone plain card
    swapped, in everyone's sight. A partner who showed he had no trump holds one now: the knowledge
    moves what each showed to the card the other holds (found by the fuzzing of whole matches)."""
    rules = Rules.make("draw")
    rng = random.Random(1082)
    swaps = 0
    for _, deal, seat in play_turns(rules, rng, 400):
        if "last_card_swap" not in deal.events:
            continue
        k = knowledge(view_for(deal, seat))
        t = deal.tables
        assert t is not None
        leader = deal.trick[0][0] if deal.trick else seat
        partner = PARTNER_OF[leader]
        if seat != partner and deal.hands[partner]:
            assert deal.hands[partner] & t.trump_mask and k.allowed[partner] & ~t.trump_mask == 0
        for h in range(4):
            if h != seat:
                assert deal.hands[h] & ~(k.known[h] | k.allowed[h]) == 0
        swaps += 1
    assert swaps > 50


@pytest.mark.parametrize("kind", ["mirror", "fishing"])
def test_mirror_and_fishing_knowledge_counts_the_trumps_taken_never_names_them(kind: str) -> None:
    """Everyone saw how many trumps each player took from the deck, not which: the knowledge asks each
    world for at least that many trumps in his hand (the true hands always have them), and no card he
    took is known to be his."""
    rules = Rules.make("classic", brag=kind)
    rng = random.Random(4)
    bound = 0
    for i, deal, seat in play_turns(rules, rng, 240, 0.3, deal_nos=2):
        if deal.brag is None:
            continue
        view = view_for(deal, seat)
        k = knowledge(view)
        assert view.brag_took == tuple(deal.brag.took)
        for h, n, m in k.min_trumps:
            assert h != seat and 0 < n <= k.need[h]
            assert (deal.hands[h] & m).bit_count() >= n, deal.record()
            assert m & k.known[h] == 0
        if deal.open_seat is None:  # nothing of another hand is seen (the exchange shows the open one)
            assert all(k.known[h] == 0 for h in range(4) if h != seat)
        w = sample_world(k, random.Random(i))
        for h, n, m in k.min_trumps:
            assert (w.hands[h] & m).bit_count() >= n
        bound += bool(k.min_trumps)
    assert bound > 50
