"""RULES.md §3, ``flip`` with the option ``deck`` = 36 (seed 000's "со сменой козыря")."""

from __future__ import annotations

import pytest

from bot.engine import Card, Deal, Declare, Match, Phase, Rules, Swap, SwapReturn, card, cards, deck_for
from bot.engine.cards import Suit
from bot.engine.order import TRUMP
from bot.engine.scoring import score_deal
from tests.engine.helpers import interleave, to_play
from tests.engine.test_common_rules import _result

FLIP36 = Rules.make("flip", deck=36)
FIRST_CARD36 = Rules.make("flip", deck=36, trump_mode="first_card")
# A first_card deal (dealer 0, seat 1 first) with hearts trump: seat 2 holds exactly one trump (♣6),
# seat 0 none; ♣7 is a plain club.
HANDS36 = {
    1: "AH TH KH 9H 8H 7H 6H QC QS",
    2: "6C AC TC KC 9C 8C 7C AS TS",
    3: "QH QD JC JS JH JD KS 9S 8S",
    0: "7S 6S AD TD KD 9D 8D 7D 6D",
}


def _deck(hands: dict[int, str], first: int = 1) -> list[Card]:
    return interleave({s: cards(h) for s, h in hands.items()}, first)


def turned36(prefix: str, rules: Rules = FLIP36, dealer: int = 0) -> Deal:
    """A 36-card turn-up deal whose deck starts with ``prefix`` and goes on in id order."""
    head = cards(prefix)
    return Deal(rules, head + [c for c in deck_for(36) if c not in head], dealer)


def test_flip_deck_36_sixes_join_the_deck_and_nine_cards_each() -> None:
    assert (FLIP36.deck_size, FLIP36.hand_size, FLIP36.top_trump) == (36, 9, card("6C"))
    assert FLIP36.to_json() == {"preset": "flip", "options": {"deck": 36}}
    assert Rules.make("flip").deck_size == 32
    deal = turned36("QH JS 9H")
    assert all(len(deal.hand(s)) == 9 for s in range(4))


def test_flip_deck_36_shmon_is_the_six_of_clubs_and_the_seven_is_ordinary() -> None:
    hearts = turned36("9H").tables
    assert hearts is not None
    assert hearts.trumps == tuple(cards("6C QC QS QH QD JC JS JH JD AH TH KH 9H 8H 7H 6H"))
    assert hearts.top == card("6C") and hearts.eff[card("7C").id] == 1 + Suit.CLUBS.ordinal
    assert hearts.beats(card("6C"), card("QC"), TRUMP)
    # With clubs trump the ♣7 is a trump of the suit, the lowest: 15 trumps.
    clubs = turned36("7C").tables
    assert clubs is not None and clubs.trump is Suit.CLUBS
    assert len(clubs.trumps) == 15 and clubs.trumps[-1] == card("7C")


def test_flip_deck_36_turn_up_skips_the_six_of_clubs_queens_and_jacks() -> None:
    deal = turned36("6C QD JH 7C", dealer=3)
    assert deal.trump is Suit.CLUBS  # the ♣7 is not skipped: it sets trump
    deck = deal.deck
    assert set(deal.hand(0)) == set(deck[0:4]) | set(deck[16::4])
    assert set(deal.hand(1)) == set(deck[4:8]) | set(deck[17::4])
    assert set(deal.hand(3)) == set(deck[12:16]) | set(deck[19::4])
    assert all(len(deal.hand(s)) == 9 for s in range(4))


def test_flip_deck_36_more_than_nine_turned_up_passes_the_deal() -> None:
    # All nine permanent trumps before a plain card: the tenth sets trump, and ten is more than nine.
    deal = turned36("JD 6C QC QS QH QD JC JS JH AH")
    assert deal.over and deal.result is not None and deal.result.void
    assert deal.result.events == ("deal_passes",) and not deal.result.same_dealer
    # Nine cards turned up (eight skipped) is a full hand, not a void: the others get nine each.
    nine = turned36("6C QC QS QH QD JC JS JH AH")
    assert not nine.over and set(nine.hand(1)) == set(cards("6C QC QS QH QD JC JS JH AH"))
    assert all(len(nine.hand(s)) == 9 for s in range(4))


def test_flip_deck_36_pass_on_bad_turn_with_the_six_of_clubs() -> None:
    rules = Rules.make("flip", deck=36, pass_on_bad_turn=True)
    assert turned36("6C AH", rules).over
    assert not turned36("6C AH").over
    assert not turned36("7C", rules).over  # the ♣7 is no шмон with 36 cards
    assert turned36("QC AH", rules).over
    assert turned36("QS JH QD AH", rules).over


def test_flip_deck_36_queen_caught_by_the_six_of_clubs() -> None:
    deal = Deal(FIRST_CARD36, _deck(HANDS36), dealer=0)
    deal.apply(2, Swap(False))
    deal.play(1, card("QC"))
    deal.play(2, card("6C"))
    assert deal.over and deal.result is not None
    assert deal.result.events == ("queen_caught",) and deal.result.penalty == (0, 8)
    assert deal.result.tricks[-1].winner is None


def test_flip_deck_36_seven_of_clubs_catches_nothing() -> None:
    deal = Deal(FIRST_CARD36, _deck(HANDS36), dealer=0)
    deal.apply(2, Swap(False))
    deal.play(1, card("AH"))
    deal.play(2, card("6C"))  # his only trump: a trump lead asks for one
    deal.play(3, card("QH"))
    deal.play(0, card("7S"))
    assert deal.tricks[-1].winner == 2 and not deal.over
    deal.play(2, card("7C"))  # a club lead: the ♣7 is a plain club
    assert card("QD") in deal.legal_plays(3) and card("KS") not in deal.legal_plays(3)
    deal.play(3, card("QD"))  # void in clubs, he must trump
    deal.play(0, card("6S"))
    deal.play(1, card("QC"))  # the opponents' ♣7 is in the trick: nothing is caught
    assert not deal.over and deal.tricks[-1].winner == 1 and "queen_caught" not in deal.events


def test_flip_deck_36_swap_one_trump_for_any_card() -> None:
    deal = Deal(FIRST_CARD36, _deck(HANDS36), dealer=0)
    assert deal.trump is Suit.HEARTS and (deal.phase, deal.to_act) == (Phase.SWAP, 2)
    deal.apply(2, Swap(True))
    assert (deal.phase, deal.to_act) == (Phase.SWAP_RETURN, 0)
    deal.apply(0, SwapReturn(card("AD")))
    assert card("6C") in deal.hand(0) and card("AD") in deal.hand(2)
    assert "swap" in deal.events
    assert (deal.phase, deal.to_act) == (Phase.SWAP, 0)


def test_flip_deck_36_declare_by_the_ninth_card() -> None:
    rules = Rules.make("flip", deck=36, trump_mode="declare")
    deck = list(deck_for(36))
    deal = Deal(rules, deck, dealer=3)
    assert (deal.phase, deal.to_act) == (Phase.DECLARE, 0)
    deal.apply(0, Declare(None))
    # Three to him, three to each other, then singles from him: his ninth card is deck[12 + 5 * 4].
    assert deal.trump is deck[32].suit and deck[32] in deal.hand(0)
    assert all(len(deal.hand(s)) == 9 for s in range(4))


def test_flip_deck_36_jack_declares_and_first_card() -> None:
    rules = Rules.make("flip", deck=36, trump_mode="jack_declares")
    deal = Deal(rules, _deck(HANDS36), dealer=0)
    assert (deal.phase, deal.to_act) == (Phase.DECLARE, 3)  # seat 3 holds ♣J
    deal.apply(3, Declare(Suit.SPADES))
    assert to_play(deal).to_act == 1
    assert Deal(rules, turned36("QH 9D").deck, 0, deal_no=2).trump is Suit.DIAMONDS
    first = Deal(FIRST_CARD36, turned36("6C").deck, 0)
    assert first.trump is Suit.CLUBS  # the printed suit of the first card, even the шмон's


@pytest.mark.parametrize(("points", "penalty"), [((61, 59), (0, 2)), ((91, 29), (0, 4)), ((120, 0), (0, 6))])
def test_flip_deck_36_scoring_and_doubled_deals_after_eggs(
    points: tuple[int, int], penalty: tuple[int, int]
) -> None:
    assert score_deal(FLIP36, points, (5, 4)).penalty == penalty
    match = Match(FLIP36, dealer=0)
    match.add(_result(penalty=(0, 0), events=("eggs",)))
    assert match.eggs_before == 1
    doubled = score_deal(FLIP36, points, (5, 4), eggs_before=match.eggs_before)
    assert doubled.penalty == (0, 2 * penalty[1]) and "doubled" in doubled.events
    deal = match.new_deal(deck=turned36("9H").deck)
    assert deal.eggs_before == 1 and deal.record()["eggs_before"] == 1
