"""Flip's swap phase tells every seat something: only a hand with exactly one trump is asked, and the
table shows who decides and whether a swap took place. The sampled worlds agree with all of it."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, Phase, Rules, Swap, SwapReturn, card, view_for
from bot.engine.ai.knowledge import knowledge
from bot.engine.ai.sample import sample_world
from tests.ai.deals import play_turns
from tests.engine.test_flip import SWAP_HANDS, _deck

FLIP = Rules.make("flip")
#: Both decks: the swap reads the same with 36 cards (♣6 on top, nine each).
DECKS = pytest.mark.parametrize("rules", [FLIP, Rules.make("flip", deck=36)], ids=["32", "36"])


def test_every_seat_sees_who_was_asked_to_swap_and_what_he_chose() -> None:
    rules = Rules.make("flip", trump_mode="first_card")
    deal = Deal(rules, _deck(SWAP_HANDS), dealer=0)
    deal.apply(2, Swap(True))
    deal.apply(0, SwapReturn(card("AD")))
    deal.apply(0, Swap(False))
    assert deal.phase is Phase.PLAY
    for seat in range(4):
        assert view_for(deal, seat).swaps == ((2, True), (0, False))


@DECKS
def test_the_true_world_fits_the_swap_phase_from_every_seat(rules: Rules) -> None:
    rng = random.Random(3)
    checked = swapped = 0
    for _, deal, seat in play_turns(rules, rng, 400, 0.3):
        k = knowledge(view_for(deal, seat))
        assert k.swaps is not None
        assert k.swaps.fits(deal.hands)
        checked += 1
        swapped += any(passed for _, passed in deal.swaps.log)
    assert checked > 1000 and swapped > 10


@DECKS
def test_sampled_worlds_fit_the_swap_phase(rules: Rules) -> None:
    rng = random.Random(4)
    checked = 0
    for _, deal, seat in play_turns(rules, rng, 150, 0.2):
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


def test_the_true_hands_lie_within_every_seats_knowledge() -> None:
    """Every view of a real deal leaves some world, so the sampler never falls back on ignoring every
    void; each seat's unseen cards lie where the knowledge lets them, a one-trump seat holding exactly
    one — but where a partner returned a trump that nothing shows yet (the worlds assume a plain card
    came back, as a strong player returns)."""
    rng = random.Random(6)
    checked = 0
    for _, deal, seat in play_turns(FLIP, rng, 600, 0.3):
        k = knowledge(view_for(deal, seat))
        t = deal.tables
        assert t is not None
        assert k.strict
        ones = dict(k.one_trump)
        back = [
            x
            for x, passed in deal.swaps.log
            if passed and x != seat and deal.hands[x] & ~k.known[x] & t.trump_mask
        ]
        if any(x not in ones for x in back):
            continue
        for h in range(4):
            if h != seat:
                hidden = deal.hands[h] & ~k.known[h]
                assert hidden & ~(k.allowed[h] | ones.get(h, 0)) == 0, (h, deal.swaps.log)
                if h in ones:
                    assert (hidden & t.trump_mask).bit_count() == 1
        checked += 1
    assert checked > 2000


#: From an arena run (a flip deal, hearts trump, dealer 0): seat 3 passed his single trump (♥8), his
#: partner (a random player) returned the ♣Q, and three tricks have been played. Seat 0
#: sees only four plain cards unseen (♣9 ♣K ♠A ♦K): read as a plain card back, seat 3 would hold five
#: cards and no trump, which fits nowhere.
CAME_BACK_DECK = (
    "QD 7H 8D 8S 9C KC 7C 7S QC QH AS JC 9S JD 7D QS TC JH TS JS AH 8C 8H AD KH 9H AC KS TD TH KD 9D"
)
CAME_BACK_PLAYS = ((1, "9S"), (2, "8S"), (3, "TS"), (0, "7S"), (3, "AC"), (0, "JS"))
CAME_BACK_PLAYS += ((1, "TC"), (2, "8C"), (0, "AD"), (1, "TD"), (2, "8D"), (3, "7D"))


def test_a_swapper_whose_plays_show_a_trump_came_back_is_read_as_holding_one() -> None:
    """Where the plain-card-back reading leaves no world, the swapper is read as holding exactly one
    trump (before, every world was drawn ignoring every void, 30 failed tries each: the rule player
    took 80 ms over this decision)."""
    deal = Deal(FLIP, [card(c) for c in CAME_BACK_DECK.split()], dealer=0, deal_no=2)
    deal.apply(3, Swap(True))
    deal.apply(1, SwapReturn(card("QC")))
    for seat, c in CAME_BACK_PLAYS:
        deal.play(seat, card(c))
    t = deal.tables
    assert t is not None and not deal.over
    assert knowledge(view_for(deal, 2)).strict  # seat 2's cards leave the plain reading a world
    seat = 0  # to play: his cards leave the plain reading no world
    k = knowledge(view_for(deal, seat))
    assert k.strict and 3 in dict(k.one_trump)
    hidden = deal.hands[3] & ~k.known[3]
    assert hidden & t.trump_mask == card("QC").bit
    assert hidden & ~(k.allowed[3] | dict(k.one_trump)[3]) == 0
    rng = random.Random(1)
    for _ in range(100):
        w = sample_world(k, rng)
        assert (w.hands[3] & t.trump_mask).bit_count() == 1
        assert all(
            w.hands[h] & ~k.known[h] & ~k.allowed[h] & ~dict(k.one_trump).get(h, 0) == 0 for h in (1, 2, 3)
        )
