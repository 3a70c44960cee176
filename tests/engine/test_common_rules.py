"""RULES.md §1, common ground: one test per rule, named after it."""

from __future__ import annotations

import random

import pytest

from bot.engine import (
    GOAT,
    GOAT_WITH_DRIVERS,
    PAIR_OF,
    Card,
    Deal,
    IllegalMoveError,
    KozelError,
    Match,
    Phase,
    Play,
    Rules,
    card,
    cards,
    deck_for,
    tables_for,
)
from bot.engine.cards import Suit
from bot.engine.scoring import score_deal, tally
from tests.engine.helpers import fill

CLASSIC = Rules.make("classic")


def classic_deal(given: dict[int, str], dealer: int = 0, **options: object) -> Deal:
    rules = Rules.make("classic", **options)
    return Deal(rules, fill(rules, given, dealer), dealer)


def test_seats_partners_sit_opposite() -> None:
    assert PAIR_OF == (0, 1, 0, 1)
    deal = classic_deal({0: "JC"})
    assert [(s + 2) % 4 for s in range(4)] == [2, 3, 0, 1]
    assert deal.pair_of[0] == deal.pair_of[2] != deal.pair_of[1] == deal.pair_of[3]


def test_seats_play_goes_clockwise() -> None:
    deal = classic_deal({2: "JC"})
    assert deal.to_act == 2
    deal.play(2, deal.legal_plays(2)[0])
    assert deal.to_act == 3
    deal.play(3, deal.legal_plays(3)[0])
    assert deal.to_act == 0


def test_card_codes() -> None:
    assert card("6C") == Card.parse("6c") and card("6C").code == "6C"
    assert [c.code for c in cards("TD QC 7S")] == ["TD", "QC", "7S"]
    assert len({c.code for c in deck_for(36)}) == 36
    for bad in ("10D", "1C", "QX", "", "Q"):
        with pytest.raises(KozelError, match="not a card code"):
            Card.parse(bad)


@pytest.mark.parametrize("size", [36, 32, 24])
def test_card_points_deck_holds_120(size: int) -> None:
    assert card("AS").points == 11 and card("TS").points == 10 and card("KS").points == 4
    assert card("QS").points == 3 and card("JS").points == 2 and card("9S").points == 0
    assert sum(c.points for c in deck_for(size)) == 120


def test_trumps_permanent_then_trump_suit() -> None:
    classic = tables_for(CLASSIC, Suit.DIAMONDS)
    assert " ".join(c.code for c in classic.trumps) == "6C QC QS QH QD JC JS JH JD AD TD KD 9D 8D 7D 6D"
    flip = tables_for(Rules.make("flip"), Suit.HEARTS)
    assert " ".join(c.code for c in flip.trumps) == "7C QC QS QH QD JC JS JH JD AH TH KH 9H 8H 7H"
    assert len(tables_for(Rules.make("flip"), Suit.CLUBS).trumps) == 14


def test_trumps_form_one_suit_for_following() -> None:
    # Spades led: the ♠Q is a trump, not a spade, so it need not (and cannot be forced to) follow.
    deal = classic_deal({0: "JC AS", 1: "QS 7S 7H 8H 9H TH AH KH 7D"})
    deal.play(0, card("AS"))
    assert deal.legal_plays(1) == [card("7S")]
    deal = classic_deal({0: "JC AS", 1: "QS 7H 8H 9H TH AH KH 7D 8D"})
    deal.play(0, card("AS"))
    assert set(deal.legal_plays(1)) == set(cards("QS 7H 8H 9H TH AH KH 7D 8D"))
    # A trump led (the ♣J) asks for a trump: the ♠Q must answer it.
    deal = classic_deal({0: "JC", 1: "QS 7S 8S 9S TS AS KS 7H 8H"})
    deal.play(0, card("JC"))
    assert deal.legal_plays(1) == [card("QS")]


def test_plain_suits_rank_ten_above_king() -> None:
    deal = classic_deal({0: "JC KS", 1: "TS", 2: "AS", 3: "9S"})
    t = deal.tables
    assert t is not None
    spades = t.sorted(cards("6S 7S 8S 9S TS KS AS"))
    assert [c.code for c in spades] == ["AS", "TS", "KS", "9S", "8S", "7S", "6S"]
    assert t.beats(card("TS"), card("KS"), 1 + Suit.SPADES.ordinal)


def test_following_must_follow_effective_suit() -> None:
    deal = classic_deal({0: "JC 7H", 1: "8H 9H 7S"})
    deal.play(0, card("7H"))
    assert set(deal.legal_plays(1)) == set(cards("8H 9H"))
    with pytest.raises(IllegalMoveError, match="must follow hearts"):
        deal.play(1, card("7S"))


def test_following_void_plays_any_card_by_default() -> None:
    deal = classic_deal({0: "JC 7H", 1: "QC 7S 8S 9S TS AS KS 6S 7C"})
    deal.play(0, card("7H"))
    assert len(deal.legal_plays(1)) == 9


def test_following_must_trump_when_void_option() -> None:
    deal = classic_deal({0: "JC 7H", 1: "QD 7S 8S 9S TS AS KS 6S 7C"}, must_trump_when_void=True)
    deal.play(0, card("7H"))
    assert deal.legal_plays(1) == [card("QD")]
    with pytest.raises(IllegalMoveError, match="must play a trump"):
        deal.play(1, card("7S"))


def test_winning_a_trick_highest_trump_wins_and_leads() -> None:
    deal = classic_deal({0: "JC AH", 1: "7H", 2: "6D 7S 8S 9S TS AS KS 6S 7C", 3: "TH"})
    for seat, c in ((0, "AH"), (1, "7H"), (2, "6D"), (3, "TH")):
        deal.play(seat, card(c))
    assert deal.tricks[0].winner == 2
    assert deal.to_act == 2
    assert deal.points == [21, 0]


def test_winning_a_trick_highest_of_led_suit_without_trump() -> None:
    deal = classic_deal({0: "JC KH", 1: "TH", 2: "7S 8S 9S TS AS KS 6S 7C 8C", 3: "AH"})
    for seat, c in ((0, "KH"), (1, "TH"), (2, "7S"), (3, "AH")):
        deal.play(seat, card(c))
    assert deal.tricks[0].winner == 3
    assert deal.points == [0, 25]


def test_shmon_catches_the_queen_opponents() -> None:
    deal2 = classic_deal({0: "JC", 1: "QC 7H 8H 9H TH AH KH 7D 8D", 2: "6C"})
    deal2.play(0, card("JC"))
    deal2.play(1, card("QC"))
    deal2.play(2, card("6C"))
    assert deal2.over and deal2.result is not None
    assert deal2.result.events == ("queen_caught",)
    assert deal2.result.penalty == (0, 4)
    assert deal2.result.tricks[-1].winner is None
    assert len(deal2.result.tricks[-1].plays) == 3


@pytest.mark.parametrize(("preset", "penalty"), [("classic", 4), ("flip", 8), ("draw", 4)])
def test_shmon_catches_the_queen_penalty_per_variant(preset: str, penalty: int) -> None:
    score = score_deal(Rules.make(preset), (50, 70), (3, 5), queen_caught_pair=0)
    assert score.penalty == (penalty, 0)
    assert score.events == ("queen_caught",)


def test_shmon_catches_the_queen_partners_trigger_nothing() -> None:
    deal = classic_deal({0: "JC 7C", 1: "QC", 3: "6C"})
    deal.play(0, card("JC"))
    deal.play(1, card("QC"))
    deal.play(2, deal.legal_plays(2)[0])
    deal.play(3, card("6C"))
    # ♣Q (seat 1) and ♣6 (seat 3) are partners: the trick is simply won by the ♣6.
    assert not deal.over
    assert deal.tricks[0].winner == 3


def test_redeal_four_queens_same_dealer() -> None:
    deal = classic_deal({2: "QC QS QH QD"}, dealer=3)
    assert deal.over and deal.result is not None
    assert deal.result.void and deal.result.same_dealer
    assert deal.result.events == ("redeal",)
    match = Match(CLASSIC, dealer=3)
    match.add(deal.result)
    assert (match.dealer, match.deal_no, match.penalty) == (3, 1, [0, 0])


def test_redeal_is_an_option_elsewhere() -> None:
    rules = Rules.make("flip", trump_mode="first_card")
    deck = fill(rules, {1: "7H QC QS QH QD"}, dealer=0)
    assert not Deal(rules, deck, 0).over
    rules = Rules.make("flip", trump_mode="first_card", redeal_four_queens=True)
    assert Deal(rules, deck, 0).result is not None


def test_match_loser_reaches_twelve_and_is_the_goat() -> None:
    match = Match(CLASSIC, dealer=0)
    for _ in range(3):
        match.add(_result(penalty=(4, 0)))
    assert match.over and match.loser == 0 and match.title == GOAT and match.penalty == [12, 0]


def test_match_goat_with_drivers_on_fourteen_or_more() -> None:
    match = Match(CLASSIC, dealer=0)
    for p in (4, 4, 6):
        match.add(_result(penalty=(0, p)))
    assert match.loser == 1 and match.title == GOAT_WITH_DRIVERS and match.penalty == [0, 14]
    with pytest.raises(KozelError, match="over"):
        match.add(_result(penalty=(0, 2)))


def test_shestyorki_tally_two_points_open_a_pair_of_pips() -> None:
    assert [tally(p) for p in (0, 1, 2, 4, 6, 8, 10, 12, 14)] == [
        (0, 0),
        (0, 0),
        (1, 0),
        (2, 0),
        (3, 0),
        (3, 1),
        (3, 2),
        (3, 3),
        (3, 3),
    ]


@pytest.mark.parametrize(
    ("points", "penalty", "name"),
    [
        ((61, 59), (0, 2), "para"),
        ((89, 31), (0, 2), "para"),
        ((90, 30), (0, 4), "cherpak"),
        ((119, 1), (0, 4), "cherpak"),
        ((120, 0), (0, 6), "shestak"),
        ((30, 90), (4, 0), "cherpak"),
    ],
)
def test_deal_scoring_para_cherpak_shestak(
    points: tuple[int, int], penalty: tuple[int, int], name: str
) -> None:
    score = score_deal(CLASSIC, points, (5, 4))
    assert score.penalty == penalty and score.events == (name,)


def test_deal_scoring_cherpak_threshold_option() -> None:
    assert score_deal(Rules.make("classic", cherpak_max=29), (90, 30), (5, 4)).penalty == (0, 2)
    assert score_deal(Rules.make("classic", cherpak_max=29), (91, 29), (5, 4)).penalty == (0, 4)


def test_deal_scoring_pointless_trick_saves_option() -> None:
    assert score_deal(CLASSIC, (120, 0), (8, 1)).penalty == (0, 6)
    saved = score_deal(Rules.make("classic", pointless_trick_saves=True), (120, 0), (8, 1))
    assert saved.penalty == (0, 4) and saved.events == ("cherpak",)
    assert score_deal(Rules.make("classic", pointless_trick_saves=True), (120, 0), (9, 0)).penalty == (0, 6)


def test_deal_scoring_eggs_charge_no_one() -> None:
    score = score_deal(CLASSIC, (60, 60), (4, 5))
    assert score.penalty == (0, 0) and score.events == ("eggs",) and score.loser is None
    match = Match(CLASSIC, dealer=0)
    match.add(_result(penalty=(0, 0), events=("eggs",)))
    assert match.eggs == 1 and match.penalty == [0, 0]


def test_dealer_first_is_drawn_at_random() -> None:
    dealers = {Match.start(CLASSIC, random.Random(seed)).dealer for seed in range(60)}
    assert dealers == {0, 1, 2, 3}
    assert Match.start(CLASSIC, random.Random(5)).dealer == Match.start(CLASSIC, random.Random(5)).dealer


def test_dealer_passes_clockwise() -> None:
    match = Match(Rules.make("draw"), dealer=3)
    match.add(_result(penalty=(2, 0)))
    assert match.dealer == 0 and match.deal_no == 2
    match.add(_result(penalty=(0, 2)))
    assert match.dealer == 1


def test_deal_rejects_a_bad_deck() -> None:
    deck = list(deck_for(36))
    with pytest.raises(KozelError, match="missing 6C"):
        Deal(CLASSIC, deck[1:], 0)
    with pytest.raises(KozelError, match="listed twice"):
        Deal(CLASSIC, [deck[1], *deck[1:]], 0)
    with pytest.raises(KozelError, match="not in this deck 6C"):
        Deal(Rules.make("draw"), [*deck_for(32)[1:], card("6C")], 0)


def test_illegal_moves_say_why() -> None:
    deal = classic_deal({0: "JC 7H", 1: "8H"})
    with pytest.raises(IllegalMoveError, match="seat 0's turn"):
        deal.play(1, card("8H"))
    with pytest.raises(IllegalMoveError, match="not in his hand"):
        deal.play(0, card("8H"))
    assert deal.phase is Phase.PLAY
    assert Play(card("7H")) in deal.legal_actions(0)
    assert deal.legal_actions(1) == []


def _result(penalty: tuple[int, int], events: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    from bot.engine import DealResult

    return DealResult(
        trump=Suit.DIAMONDS,
        tricks=(),
        points=(0, 0),
        tricks_won=(0, 0),
        events=events,
        penalty=penalty,
        jack_holder=0,
    )
