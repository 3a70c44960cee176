"""RULES.md §2, classic's first deal and its options (the brag is a later deal)."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, IllegalMoveError, Match, Rules, card, cards, deck_for, tables_for
from bot.engine.cards import Suit
from bot.engine.scoring import score_deal
from tests.engine.helpers import fill, play_out


def test_classic_trumps_sixteen_with_diamonds() -> None:
    t = tables_for(Rules.make("classic"), Suit.DIAMONDS)
    assert len(t.trumps) == 16 and t.trumps[-1] == card("6D")
    plain_clubs = [c for c in deck_for(36) if c.suit is Suit.CLUBS and not t.is_trump(c)]
    assert " ".join(c.code for c in t.sorted(plain_clubs)) == "AC TC KC 9C 8C 7C"


def test_classic_first_deal_one_card_at_a_time_nine_each() -> None:
    deck = list(deck_for(36))
    random.Random(5).shuffle(deck)
    deal = Deal(Rules.make("classic"), deck, dealer=2)
    for seat in range(4):
        # Seat 3 is left of dealer 2 and gets deck[0], deck[4], ...
        assert set(deal.hand(seat)) == set(deck[(seat - 3) % 4 :: 4])
        assert len(deal.hand(seat)) == 9


def test_classic_club_jack_leads_the_first_deal() -> None:
    rules = Rules.make("classic")
    for seat in range(4):
        deal = Deal(rules, fill(rules, {seat: "JC"}, dealer=1), dealer=1)
        assert deal.to_act == seat and deal.jack_holder == seat


def test_classic_second_deal_is_dealt_by_the_club_jack_holder() -> None:
    rules = Rules.make("classic")
    deal = play_out(Deal(rules, fill(rules, {3: "JC"}, dealer=0, seed=4), dealer=0), random.Random(1))
    match = Match(rules, dealer=0)
    assert deal.result is not None
    match.add(deal.result)
    assert match.dealer == 3 and match.deal_no == 2


def test_classic_option_deck_32_top_trump_seven_of_clubs() -> None:
    rules = Rules.make("classic", deck=32)
    t = tables_for(rules, Suit.DIAMONDS)
    assert t.top == card("7C") and len(t.trumps) == 15
    deal = Deal(rules, fill(rules, {0: "JC"}), 3)
    assert all(len(deal.hand(s)) == 8 for s in range(4))


def test_classic_option_deck_24() -> None:
    rules = Rules.make("classic", deck=24)
    assert " ".join(c.code for c in tables_for(rules, Suit.DIAMONDS).trumps) == (
        "6C QC QS QH QD JC JS JH JD AD TD KD 6D"
    )
    deal = Deal(rules, fill(rules, {0: "JC"}), 3)
    assert all(len(deal.hand(s)) == 6 for s in range(4))


def test_classic_option_trump_suit_clubs() -> None:
    t = tables_for(Rules.make("classic", trump_suit="C"), Suit.CLUBS)
    assert " ".join(c.code for c in t.trumps) == "6C QC QS QH QD JC JS JH JD AC TC KC 9C 8C 7C"
    assert not t.is_trump(card("AD"))


def test_classic_option_jack_order_literal() -> None:
    t = tables_for(Rules.make("classic", jack_order="literal"), Suit.DIAMONDS)
    assert [c.code for c in t.trumps[5:9]] == ["JC", "JH", "JS", "JD"]


def test_classic_option_matadors_lower_matador_does_not_force_a_higher_one() -> None:
    given = {
        0: "JC 6C QH QD JS JH AD TD KD",
        1: "JD AC TC KC 9C 8C 7C 6S 7S",
        2: "QS 8S 9S TS AS KS 7H 8H 9H",
        3: "QC 6D TH AH KH 6H 7D 8D 9D",
    }
    rules = Rules.make("classic", matadors=True)
    deal = Deal(rules, fill(rules, given), 0)
    deal.play(0, card("JC"))
    # Seat 1's only trump is the ♦J, below the ♣J: he must play it.
    assert deal.legal_plays(1) == [card("JD")]
    deal.play(1, card("JD"))
    # Seat 2's only trump is the ♠Q, a higher matador: he need not play it.
    assert len(deal.legal_plays(2)) == 9
    deal.play(2, card("7H"))
    # Seat 3 holds ♣Q but also plain trumps: not only higher matadors, so he must follow with a trump.
    assert set(deal.legal_plays(3)) == set(cards("QC 6D 7D 8D 9D"))
    plain = Deal(Rules.make("classic"), fill(rules, given), 0)
    plain.play(0, card("JC"))
    plain.play(1, card("JD"))
    assert plain.legal_plays(2) == [card("QS")]


def test_classic_option_first_lead_trump_ace() -> None:
    rules = Rules.make("classic", first_lead_trump_ace=True)
    deal = Deal(rules, fill(rules, {1: "JC", 3: "AD"}), 0)
    assert deal.to_act == 3 and deal.legal_plays(3) == [card("AD")]
    with pytest.raises(IllegalMoveError, match="first lead must be AD"):
        deal.play(3, deal.hand(3)[-1])


def test_classic_option_score_winners_first_to_twelve_wins() -> None:
    rules = Rules.make("classic", score_winners=True)
    assert score_deal(rules, (80, 40), (6, 3)).penalty == (2, 0)
    assert score_deal(rules, (80, 40), (6, 3), queen_caught_pair=0).penalty == (0, 4)
    match = Match(rules, dealer=0)
    from tests.engine.test_common_rules import _result

    for _ in range(3):
        match.add(_result(penalty=(4, 0)))
    assert match.over and match.loser == 1
