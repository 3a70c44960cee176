"""RULES.md §3, ``flip``: trump turned up, the one-trump swap, trump-choice options, scoring."""

from __future__ import annotations

import pytest

from bot.engine import (
    Deal,
    Declare,
    IllegalMoveError,
    Match,
    Phase,
    Rules,
    Swap,
    SwapReturn,
    card,
    cards,
    view_for,
)
from bot.engine.cards import Suit
from bot.engine.scoring import score_deal
from tests.engine.helpers import interleave

FLIP = Rules.make("flip")
# A first_card deal with hearts trump: seat 2 holds exactly one trump (♣7), seat 0 none.
SWAP_HANDS = {
    1: "AH TH KH 9H 8H 7H QC QS",
    2: "7C AC TC KC 9C 8C AS TS",
    3: "QH QD JC JS JH JD KS 9S",
    0: "8S 7S AD TD KD 9D 8D 7D",
}


def _deck(hands: dict[int, str], first: int = 1) -> list:  # type: ignore[type-arg]
    return interleave({s: cards(h) for s, h in hands.items()}, first)


def turned(prefix: str, dealer: int = 0) -> Deal:
    """A turn-up deal whose deck starts with ``prefix`` and goes on in id order."""
    head = cards(prefix)
    rest = [c for c in _all32() if c not in head]
    return Deal(FLIP, head + rest, dealer)


def _all32() -> list:  # type: ignore[type-arg]
    from bot.engine import deck_for

    return list(deck_for(32))


def test_flip_trumps_fifteen_or_fourteen_with_clubs() -> None:
    deal = turned("QH JS 9H")
    assert deal.tables is not None and len(deal.tables.trumps) == 15
    assert deal.trump is Suit.HEARTS
    clubs = turned("AC")
    assert clubs.tables is not None and len(clubs.tables.trumps) == 14


def test_flip_trump_turned_up_blocks_then_one_at_a_time() -> None:
    deal = turned("QH JS 9H", dealer=0)
    deck = deal.deck
    assert set(deal.hand(1)) == set(deck[0:3]) | set(deck[12::4])
    assert set(deal.hand(2)) == set(deck[3:6]) | set(deck[13::4])
    assert set(deal.hand(3)) == set(deck[6:9]) | set(deck[14::4])
    assert set(deal.hand(0)) == set(deck[9:12]) | set(deck[15::4])
    assert all(len(deal.hand(s)) == 8 for s in range(4))
    # The turned-up cards are seen by everyone while they stay in seat 1's hand.
    assert set(view_for(deal, 3).seen[1]) == set(cards("QH JS 9H"))
    assert view_for(deal, 3).seen[2] == ()


def test_flip_more_than_eight_turned_up_passes_the_deal() -> None:
    deal = turned("7C QC QS QH QD JC JS JH JD AH")
    assert deal.over and deal.result is not None and deal.result.void
    assert deal.result.events == ("deal_passes",) and not deal.result.same_dealer
    match = Match(FLIP, dealer=0)
    match.add(deal.result)
    assert match.dealer == 1 and match.deal_no == 1


def test_flip_option_pass_on_bad_turn() -> None:
    rules = Rules.make("flip", pass_on_bad_turn=True)
    head = cards("QC AH")
    deck = head + [c for c in _all32() if c not in head]
    assert Deal(rules, deck, 0).result is not None
    assert not Deal(FLIP, deck, 0).over
    head = cards("QS JH QD AH")
    deck = head + [c for c in _all32() if c not in head]
    assert Deal(rules, deck, 0).over
    head = cards("QS JH AH")
    deck = head + [c for c in _all32() if c not in head]
    assert not Deal(rules, deck, 0).over


def test_flip_swap_one_trump_for_any_card() -> None:
    rules = Rules.make("flip", trump_mode="first_card")
    deal = Deal(rules, _deck(SWAP_HANDS), dealer=0)
    assert deal.trump is Suit.HEARTS
    assert (deal.phase, deal.to_act) == (Phase.SWAP, 2)
    deal.apply(2, Swap(True))
    assert (deal.phase, deal.to_act) == (Phase.SWAP_RETURN, 0)
    with pytest.raises(IllegalMoveError, match="not in his hand"):
        deal.apply(0, SwapReturn(card("AS")))
    deal.apply(0, SwapReturn(card("AD")))
    assert card("7C") in deal.hand(0) and card("AD") in deal.hand(2)
    # Seat 3 holds six trumps; seat 0 now holds exactly one and decides in his turn.
    assert (deal.phase, deal.to_act) == (Phase.SWAP, 0)
    deal.apply(0, Swap(False))
    assert (deal.phase, deal.to_act) == (Phase.PLAY, 1)
    # Each partner knows the card he passed; the opponents know nothing of it.
    assert view_for(deal, 2).seen[0] == (card("7C"),)
    assert view_for(deal, 0).seen[2] == (card("AD"),)
    assert view_for(deal, 1).seen[0] == () and view_for(deal, 1).seen[2] == ()


def test_flip_swap_refused_keeps_the_hands() -> None:
    rules = Rules.make("flip", trump_mode="first_card")
    deal = Deal(rules, _deck(SWAP_HANDS), dealer=0)
    deal.apply(2, Swap(False))
    assert deal.phase is Phase.PLAY and card("7C") in deal.hand(2)


def test_flip_left_of_dealer_leads() -> None:
    deal = turned("QH JS 9H", dealer=2)
    assert deal.phase is Phase.PLAY or deal.phase is Phase.SWAP
    while deal.phase is Phase.SWAP:
        assert deal.to_act is not None
        deal.apply(deal.to_act, Swap(False))
    assert deal.to_act == 3


def test_flip_must_trump_when_void() -> None:
    rules = Rules.make("flip", trump_mode="first_card")
    deal = Deal(rules, _deck(SWAP_HANDS), dealer=0)
    deal.apply(2, Swap(False))
    deal.play(1, card("AH"))  # a trump lead asks for a trump
    assert deal.legal_plays(2) == [card("7C")]
    deal.play(2, card("7C"))
    assert set(deal.legal_plays(3)) == set(cards("QH QD JC JS JH JD"))


def test_flip_void_without_trump_plays_any_card() -> None:
    hands = dict(SWAP_HANDS)
    rules = Rules.make("flip", trump_mode="first_card")
    deal = Deal(rules, _deck(hands), dealer=0)
    deal.apply(2, Swap(False))
    deal.play(1, card("AH"))
    deal.play(2, card("7C"))
    deal.play(3, card("QH"))
    assert len(deal.legal_plays(0)) == 8  # seat 0 has no trump at all


@pytest.mark.parametrize(
    ("points", "penalty"),
    [((61, 59), (0, 2)), ((90, 30), (0, 2)), ((91, 29), (0, 4)), ((119, 1), (0, 4)), ((120, 0), (0, 6))],
)
def test_flip_scoring_opponents_open_pips(points: tuple[int, int], penalty: tuple[int, int]) -> None:
    assert score_deal(FLIP, points, (5, 3)).penalty == penalty


def test_flip_queen_caught_opens_four_pairs() -> None:
    assert score_deal(FLIP, (20, 20), (1, 1), queen_caught_pair=1).penalty == (0, 8)


def test_flip_eggs_double_the_next_deal() -> None:
    from tests.engine.test_common_rules import _result

    match = Match(FLIP, dealer=0)
    match.add(_result(penalty=(0, 0), events=("eggs",)))
    assert match.eggs_before == 1
    score = score_deal(FLIP, (70, 50), (5, 3), eggs_before=match.eggs_before)
    assert score.penalty == (0, 4) and "doubled" in score.events
    match.add(_result(penalty=(0, 0), events=("eggs",)))
    assert match.eggs_before == 2
    assert score_deal(FLIP, (70, 50), (5, 3), eggs_before=2).penalty == (0, 8)
    assert score_deal(FLIP, (70, 50), (5, 3), queen_caught_pair=0, eggs_before=1).penalty == (16, 0)
    match.add(_result(penalty=(0, 2)))
    assert match.eggs_before == 0


def test_flip_option_jack_declares_first_deal() -> None:
    rules = Rules.make("flip", trump_mode="jack_declares")
    hands = dict(SWAP_HANDS)
    deal = Deal(rules, _deck(hands), dealer=0)
    assert (deal.phase, deal.to_act) == (Phase.DECLARE, 3)  # seat 3 holds ♣J
    assert Declare(None) not in deal.legal_actions(3)
    deal.apply(3, Declare(Suit.SPADES))
    assert deal.trump is Suit.SPADES
    while deal.phase is Phase.SWAP:
        assert deal.to_act is not None
        deal.apply(deal.to_act, Swap(False))
    assert deal.to_act == 1
    # Later deals turn trump up, and the ♣J holder deals the second deal.
    assert Deal(rules, turned("QH 9D").deck, 0, deal_no=2).trump is Suit.DIAMONDS
    from tests.engine.test_common_rules import _result

    match = Match(rules, dealer=0)
    match.add(_result(penalty=(0, 2)))  # jack_holder=0 in the helper
    assert match.dealer == 0 and match.deal_no == 2


def test_flip_option_declare_after_three_cards() -> None:
    rules = Rules.make("flip", trump_mode="declare")
    deck = _all32()
    deal = Deal(rules, deck, dealer=0)
    assert (deal.phase, deal.to_act) == (Phase.DECLARE, 1)
    assert view_for(deal, 1).hand == tuple(deck[:3]) or set(view_for(deal, 1).hand) == set(deck[:3])
    assert Declare(None) in deal.legal_actions(1)
    deal.apply(1, Declare(Suit.DIAMONDS))
    assert deal.trump is Suit.DIAMONDS
    assert set(deal.hand(2)) == set(deck[3:6]) | set(deck[13::4])
    assert set(deal.hand(1)) == set(deck[0:3]) | set(deck[12::4])


def test_flip_option_declare_by_the_last() -> None:
    rules = Rules.make("flip", trump_mode="declare")
    deck = _all32()
    deal = Deal(rules, deck, dealer=3)
    deal.apply(0, Declare(None))
    assert deal.trump is deck[28].suit
    assert deck[28] in deal.hand(0)


def test_flip_option_first_card() -> None:
    rules = Rules.make("flip", trump_mode="first_card")
    head = cards("QS")
    deck = head + [c for c in _all32() if c not in head]
    deal = Deal(rules, deck, 0)
    assert deal.trump is Suit.SPADES and card("QS") in deal.hand(1)
