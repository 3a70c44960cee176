"""Flip's swap phase tells every seat something: only a hand with exactly one trump is asked, and the
table shows who decides and whether a swap took place. The sampled worlds agree with all of it."""

from __future__ import annotations

import random

from bot.engine import Deal, Phase, Rules, Swap, SwapReturn, card, view_for
from bot.engine.ai.sample import knowledge, sample_world
from tests.ai.deals import play_turns
from tests.engine.test_flip import SWAP_HANDS, _deck

FLIP = Rules.make("flip")


def test_every_seat_sees_who_was_asked_to_swap_and_what_he_chose() -> None:
    rules = Rules.make("flip", trump_mode="first_card")
    deal = Deal(rules, _deck(SWAP_HANDS), dealer=0)
    deal.apply(2, Swap(True))
    deal.apply(0, SwapReturn(card("AD")))
    deal.apply(0, Swap(False))
    assert deal.phase is Phase.PLAY
    for seat in range(4):
        assert view_for(deal, seat).swaps == ((2, True), (0, False))


def test_the_true_world_fits_the_swap_phase_from_every_seat() -> None:
    rng = random.Random(3)
    checked = swapped = 0
    for _, deal, seat in play_turns(FLIP, rng, 400, 0.3):
        k = knowledge(view_for(deal, seat))
        assert k.swaps is not None
        assert k.swaps.fits(deal.hands)
        checked += 1
        swapped += any(passed for _, passed in deal.swaps.log)
    assert checked > 1000 and swapped > 10


def test_sampled_worlds_fit_the_swap_phase() -> None:
    rng = random.Random(4)
    checked = 0
    for _, deal, seat in play_turns(FLIP, rng, 150, 0.2):
        k = knowledge(view_for(deal, seat))
        assert k.swaps is not None
        for _ in range(5):
            w = sample_world(k, rng)
            assert k.swaps.fits(w.hands)
            checked += 1
    assert checked > 500


def _after_swaps(choose: bool) -> tuple[Deal, Rules]:
    """The swap hands of tests/engine/test_flip.py: seat 2 holds one trump (♣7) and decides first."""
    rules = Rules.make("flip", trump_mode="first_card")
    deal = Deal(rules, _deck(SWAP_HANDS), dealer=0)
    deal.apply(2, Swap(choose))
    if choose:
        deal.apply(0, SwapReturn(card("AD")))
        deal.apply(0, Swap(False))
    assert deal.phase is Phase.PLAY
    return deal, rules


def test_a_seat_that_kept_his_one_trump_holds_exactly_one_in_every_world() -> None:
    deal, _ = _after_swaps(False)
    t = deal.tables
    assert t is not None
    for seat in (1, 3):  # the opponents of seat 2
        k = knowledge(view_for(deal, seat))
        rng = random.Random(seat)
        for _ in range(200):
            w = sample_world(k, rng)
            assert (w.hands[2] & t.trump_mask).bit_count() == 1
            assert k.swaps is not None and k.swaps.fits(w.hands)


def test_a_swapper_holds_no_unseen_trump_and_his_partner_at_least_one() -> None:
    deal, _ = _after_swaps(True)
    t = deal.tables
    assert t is not None
    for seat in (1, 3):
        k = knowledge(view_for(deal, seat))
        rng = random.Random(seat)
        for _ in range(200):
            w = sample_world(k, rng)
            assert not w.hands[2] & t.trump_mask
            # Seat 0 got seat 2's trump and then held exactly one (he was asked and kept it).
            assert (w.hands[0] & t.trump_mask).bit_count() == 1


def test_a_one_trump_seat_the_view_contradicts_still_gives_worlds() -> None:
    """Knowledge no real table could give (a seat's one unseen trump is a card in my own hand, or the
    seat needs no card) still samples: the sampler never fails a bot's decision."""
    import dataclasses

    deal, _ = _after_swaps(False)
    k = knowledge(view_for(deal, 1))
    t = deal.tables
    assert t is not None
    mine = k.known[1] & t.trump_mask
    assert mine
    rng = random.Random(2)
    for forged in (((3, mine),), ((2, mine), (3, mine))):
        k2 = dataclasses.replace(k, one_trump=forged)
        w = sample_world(k2, rng)
        assert [h.bit_count() for h in w.hands] == [len(deal.hand(s)) for s in range(4)]
