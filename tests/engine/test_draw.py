"""RULES.md §4, ``draw``: four-card hands, the stock, the lead restrictions, the queen catch, scoring."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, IllegalMoveError, Rules, card, cards, deck_for, tables_for, view_for
from bot.engine.cards import Suit
from bot.engine.scoring import score_deal
from tests.engine.helpers import interleave, play_out

DRAW = Rules.make("draw")


def draw_deck(hands: dict[int, str], stock: str = "", dealer: int = 0) -> list:  # type: ignore[type-arg]
    """Hands of four dealt one at a time from the dealer's left, then ``stock`` on top of the rest."""
    head = interleave({s: cards(h) for s, h in hands.items()}, (dealer + 1) % 4) + cards(stock)
    return head + [c for c in deck_for(32) if c not in head]


HANDS = {0: "AS 8C 9C KH", 1: "7S 7H 8H 9H", 2: "TS 7D 8D 9D", 3: "8S TH AH KD"}


def test_draw_trumps_low_to_high() -> None:
    t = tables_for(DRAW, Suit.CLUBS)
    low_to_high = " ".join(c.code for c in reversed(t.trumps))
    assert low_to_high == "8C 9C KC TC AC JD JH JS JC QD QH QS QC 7C"
    plain = t.sorted(cards("7S 8S 9S KS TS AS"))
    assert " ".join(c.code for c in reversed(plain)) == "7S 8S 9S KS TS AS"


def test_draw_four_cards_each_and_a_stock() -> None:
    deal = Deal(DRAW, draw_deck(HANDS), dealer=0)
    for seat, hand in HANDS.items():
        assert set(deal.hand(seat)) == set(cards(hand))
    assert len(deal.stock) == 16 and view_for(deal, 1).stock_size == 16


def test_draw_dealer_leads_a_plain_card_first() -> None:
    deal = Deal(DRAW, draw_deck(HANDS), dealer=0)
    assert deal.to_act == 0
    assert set(deal.legal_plays(0)) == set(cards("AS KH"))
    with pytest.raises(IllegalMoveError, match="trump may not be led"):
        deal.play(0, card("8C"))


def test_draw_after_each_trick_winner_draws_first() -> None:
    deal = Deal(DRAW, draw_deck(HANDS, stock="TC QD 7C AD"), dealer=0)
    for seat, c in ((0, "AS"), (1, "7S"), (2, "TS"), (3, "8S")):
        deal.play(seat, card(c))
    assert deal.tricks[0].winner == 0 and deal.points == [21, 0]
    assert card("TC") in deal.hand(0) and card("QD") in deal.hand(1)
    assert card("7C") in deal.hand(2) and card("AD") in deal.hand(3)
    assert len(deal.stock) == 12


def test_draw_leader_whose_pair_led_before_may_not_lead_trump() -> None:
    deal = Deal(DRAW, draw_deck(HANDS, stock="TC QD 7C AD"), dealer=0)
    for seat, c in ((0, "AS"), (1, "7S"), (2, "TS"), (3, "8S")):
        deal.play(seat, card(c))
    # Seat 0 (pair A) led trick 1 and won it: he must lead his plain ♥K, not one of his clubs.
    assert deal.legal_plays(0) == [card("KH")]


def test_draw_leader_of_the_other_pair_may_lead_trump() -> None:
    hands = {0: "KS 8C 9C KH", 1: "AS 7H 8H 9H", 2: "TS 7D 8D 9D", 3: "8S TH AH KD"}
    deal = Deal(DRAW, draw_deck(hands, stock="TC QD 7C AD"), dealer=0)
    for seat, c in ((0, "KS"), (1, "AS"), (2, "TS"), (3, "8S")):
        deal.play(seat, card(c))
    assert deal.tricks[0].winner == 1
    assert card("TC") in deal.legal_plays(1)  # the winner drew the ♣10 first and may lead it


def test_draw_last_card_swap_gives_the_leader_his_partners_plain_card() -> None:
    seen = 0
    for seed in range(400):
        rng = random.Random(seed)
        deal = Deal.shuffled(DRAW, rng, dealer=seed % 4)
        play_out(deal, rng)
        if "last_card_swap" not in deal.events:
            continue
        seen += 1
        last = deal.tricks[-1]
        t = deal.tables
        assert t is not None
        leader, led = last.plays[0]
        partner_card = next(c for s, c in last.plays if s == (leader + 2) % 4)
        assert not t.is_trump(led) and t.is_trump(partner_card)
        prev = deal.tricks[-2]
        assert deal.pair_of[prev.leader] == deal.pair_of[leader]
    assert seen > 0


def test_draw_seven_and_queen_of_clubs_from_different_pairs_end_the_deal() -> None:
    hands = {0: "AS 8C 9C KH", 1: "QC 7H 8H 9H", 2: "7C 7D 8D 9D", 3: "8S TH AH KD"}
    deal = Deal(DRAW, draw_deck(hands), dealer=0)
    deal.play(0, card("AS"))
    deal.play(1, card("QC"))
    deal.play(2, card("7C"))
    assert deal.over and deal.result is not None
    assert deal.result.events == ("queen_caught",) and deal.result.penalty == (0, 4)


def test_draw_scoring_loser_gets_two() -> None:
    assert score_deal(DRAW, (61, 59), (4, 4)).penalty == (0, 2)
    assert score_deal(DRAW, (120, 0), (8, 0)).penalty == (0, 2)
    assert score_deal(DRAW, (60, 60), (4, 4)).penalty == (0, 0)
