"""RULES.md §5, ``tricks`` ("козёл с подсчётом взяток"): its trumps, plain queens, no queen catch, every
deal dealt one card at a time, who leads and deals, scoring by tricks and all nine tricks ending the match."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.engine import Deal, Match, Phase, Rules, RulesError, card, cards, result_of, tables_for
from bot.engine.cards import Suit
from bot.engine.play import play_rules
from bot.engine.scoring import score_deal
from tests.engine.helpers import fill, interleave, play_out

TRICKS = Rules.make("tricks")

#: Hands for a deal in which pair A (seats 0 and 2) holds all twelve trumps and the top two of every
#: other suit: it can take all nine tricks.
SWEEP = {
    0: "6C JS JD AC KC 9C AS AH AD",
    1: "KS QS 9S 8S 7S 6S KH QH 9H",
    2: "JC JH TC QC 8C 7C TS TH TD",
    3: "8H 7H 6H KD QD 9D 8D 7D 6D",
}


def _deck(hands: dict[int, str], dealer: int) -> list:  # type: ignore[type-arg]
    return interleave({s: cards(h) for s, h in hands.items()}, (dealer + 1) % 4)


def _play_strongest_for_pair_a(deal: Deal) -> Deal:
    """Pair A plays its strongest legal card, pair B its weakest."""
    t = deal.tables
    assert t is not None
    while not deal.over:
        seat = deal.to_act
        assert seat is not None
        legal = sorted(deal.legal_plays(seat), key=lambda c: t.power[c.id] + (100 if t.is_trump(c) else 0))
        deal.play(seat, legal[-1] if seat % 2 == 0 else legal[0])
    return deal


def test_tricks_trumps_are_the_six_then_the_jacks_then_the_other_clubs() -> None:
    t = tables_for(TRICKS, Suit.CLUBS)
    assert " ".join(c.code for c in t.trumps) == "6C JC JS JH JD AC TC KC QC 9C 8C 7C"
    assert TRICKS.deck_size == 36 and TRICKS.top_trump == card("6C") and TRICKS.fixed_trump_suit is Suit.CLUBS


def test_tricks_queens_other_than_the_club_queen_are_plain_cards() -> None:
    t = tables_for(TRICKS, Suit.CLUBS)
    for suit in "SHD":
        plain = t.sorted(cards(" ".join(r + suit for r in "6789TQKA")))
        assert "".join(c.code[0] for c in plain) == "ATKQ9876"
        assert not t.is_trump(card("Q" + suit))
    assert t.is_trump(card("QC"))
    # The ♠Q follows spades and beats the ♠9 but not the ♠K; a void player's jack trumps it.
    assert t.beats(card("QS"), card("9S"), t.eff[card("QS").id])
    assert t.beats(card("KS"), card("QS"), t.eff[card("QS").id])
    assert t.beats(card("JD"), card("QS"), t.eff[card("QS").id])


def test_tricks_a_queen_answers_a_lead_of_its_suit() -> None:
    deck = fill(TRICKS, {0: "JC QS 7D", 1: "KS 8H", 2: "9S", 3: "AH AD"}, dealer=3)
    deal = Deal(TRICKS, deck, dealer=3)
    assert deal.to_act == 0  # the ♣J holder leads deal 1
    deal.play(0, card("QS"))
    assert card("KS") in deal.legal_plays(1)
    assert all(c.suit is Suit.SPADES for c in deal.legal_plays(1))


def test_tricks_no_queen_catch() -> None:
    deck = fill(TRICKS, {0: "JC 7C", 1: "6C 8S", 2: "9C", 3: "QC AD"}, dealer=3)
    deal = Deal(TRICKS, deck, dealer=3)
    for seat, c in ((0, "7C"), (1, "6C"), (2, "9C"), (3, "QC")):
        deal.play(seat, card(c))
    assert not deal.over and deal.tricks[0].winner == 1 and "queen_caught" not in deal.events
    assert play_rules(TRICKS, Suit.CLUBS).special == 0


@pytest.mark.parametrize("deal_no", [1, 2, 5])
def test_tricks_every_deal_is_dealt_one_card_at_a_time_with_no_brag(deal_no: int) -> None:
    deck = list(tables_for(TRICKS, Suit.CLUBS).deck)
    random.Random(deal_no).shuffle(deck)
    deal = Deal(TRICKS, deck, dealer=2, deal_no=deal_no)
    assert deal.phase is Phase.PLAY and deal.brag is None and deal.trump is Suit.CLUBS
    for k in range(4):
        assert set(deal.hand((3 + k) % 4)) == set(deck[k::4])


def test_tricks_the_club_jack_holder_leads_the_first_deal_and_deals_the_second() -> None:
    rng = random.Random(4)
    match = Match(TRICKS, dealer=1)
    first = match.new_deal(rng=rng)
    holder = first.holder(card("JC"))
    assert first.to_act == holder
    play_out(first, rng)
    assert first.result is not None and first.result.jack_holder == holder
    match.add(first.result)
    assert match.dealer == holder
    second = match.new_deal(rng=rng)
    assert second.dealer == holder and second.to_act == (holder + 1) % 4
    play_out(second, rng)
    assert second.result is not None
    match.add(second.result)
    assert match.dealer == (holder + 1) % 4  # then the deal passes clockwise


def test_tricks_later_deals_are_led_by_the_dealers_left() -> None:
    deck = fill(TRICKS, {1: "JC"}, dealer=2)
    assert Deal(TRICKS, deck, dealer=2, deal_no=1).to_act == 1
    assert Deal(TRICKS, deck, dealer=2, deal_no=3).to_act == 3


@pytest.mark.parametrize(
    ("won", "penalty", "event"),
    [
        ((5, 4), (0, 2), "under_five"),
        ((3, 6), (2, 0), "under_five"),
        ((6, 3), (0, 2), "under_five"),
        ((7, 2), (0, 4), "two_or_fewer"),
        ((1, 8), (4, 0), "two_or_fewer"),
        ((9, 0), (0, 6), "no_tricks"),
        ((0, 9), (6, 0), "no_tricks"),
    ],
)
def test_tricks_deal_scored_by_tricks(won: tuple[int, int], penalty: tuple[int, int], event: str) -> None:
    # Card points do not count: the pair with fewer tricks is charged even with most of the points.
    points = (100, 20) if won[0] < won[1] else (20, 100)
    score = score_deal(TRICKS, points, won)
    assert score.penalty == penalty and score.events[0] == event
    assert ("all_tricks" in score.events) == (0 in won)
    v = play_rules(TRICKS, Suit.CLUBS).value0(points[0], points[1], won[0], won[1], None)
    assert v == penalty[1] - penalty[0]  # what the bot players search for


def test_tricks_sixty_sixty_is_no_egg() -> None:
    assert score_deal(TRICKS, (60, 60), (4, 5)).penalty == (2, 0)


def test_tricks_all_nine_tricks_win_the_match_at_once() -> None:
    match = Match(TRICKS, dealer=3, deal_no=4, penalty=[2, 4])
    deal = _play_strongest_for_pair_a(match.new_deal(_deck(SWEEP, 3)))
    assert deal.result is not None and deal.result.tricks_won == (9, 0)
    assert deal.result.events == ("no_tricks", "all_tricks") and deal.result.penalty == (0, 6)
    match.add(deal.result)
    assert match.over and match.loser == 1 and match.title == "goat" and match.penalty == [2, 10]
    with pytest.raises(Exception, match="the match is over"):
        match.new_deal(rng=random.Random(0))


def test_tricks_all_nine_past_the_target_make_goats_with_drivers() -> None:
    match = Match(TRICKS, dealer=3, deal_no=4, penalty=[0, 10])
    deal = _play_strongest_for_pair_a(match.new_deal(_deck(SWEEP, 3)))
    assert deal.result is not None
    match.add(deal.result)
    assert match.loser == 1 and match.title == "goat_with_drivers" and match.penalty == [0, 16]


def test_tricks_match_otherwise_to_twelve() -> None:
    match = Match(TRICKS, dealer=0)
    rng = random.Random(8)
    while not match.over:
        deal = play_out(match.new_deal(rng=rng), rng)
        assert deal.result is not None
        match.add(deal.result)
    last = match.results[-1]
    assert match.loser is not None
    assert match.penalty[match.loser] >= 12 or "all_tricks" in last.events


def test_tricks_options_that_make_sense_are_taken() -> None:
    rules = Rules.make("tricks", match_target=6, must_trump_when_void=True)
    assert rules.to_json() == {
        "preset": "tricks",
        "options": {"match_target": 6, "must_trump_when_void": True},
    }
    assert Rules.parse(rules.to_json()) == rules
    deck = fill(rules, {0: "JC AS 7C", 1: "KH QH 9H 7H 8C AD TD KD QD"}, dealer=3)
    deal = Deal(rules, deck, dealer=3)
    deal.play(0, card("AS"))
    assert deal.legal_plays(1) == [card("8C")]  # void in spades: he must trump
    default = Deal(TRICKS, deck, dealer=3)
    default.play(0, card("AS"))
    assert len(default.legal_plays(1)) == 9  # by default a void player plays any card


@pytest.mark.parametrize(
    "option",
    [
        {"deck": 32},
        {"trump_suit": "D"},
        {"jack_order": "literal"},
        {"matadors": True},
        {"first_lead_trump_ace": True},
        {"score_winners": True},
        {"brag": "mirror"},
        {"brag_choice": ["pants", "mirror"]},
        {"redeal_four_queens": True},
        {"cherpak_max": 29},
        {"pointless_trick_saves": True},
        {"trump_mode": "declare"},
        {"eggs_double": False},
    ],
)
def test_tricks_options_that_do_not_apply_are_refused_by_name(option: dict[str, object]) -> None:
    (name,) = option
    with pytest.raises(RulesError, match=f"{name}: unknown option"):
        Rules.make("tricks", **option)


@pytest.mark.parametrize("deal_no", [1, 2])
def test_tricks_four_queens_are_no_redeal(deal_no: int) -> None:
    # RULES.md §5 [settled]: queens are not top trumps here, so a hand of four is dealt and played.
    deal = Deal(TRICKS, fill(TRICKS, {0: "QC QS QH QD JC"}, dealer=3), dealer=3, deal_no=deal_no)
    assert deal.phase is Phase.PLAY and "redeal" not in deal.events
    assert not TRICKS.options.redeal_four_queens


def test_tricks_golden_match_shows_who_leads_and_deals() -> None:
    # tests/records/tricks_match_all_nine: the ♣J holder (seat 2, not the dealer's left) leads deal 1
    # and deals deal 2, which his left leads; deal 3 passes clockwise; its sweep ends the match at 6-6.
    root = Path(__file__).resolve().parents[1] / "records"
    record = json.loads((root / "tricks_match_all_nine.json").read_text(encoding="utf-8"))
    result = result_of(record)
    first = Deal(TRICKS, cards(" ".join(record["deals"][0]["deck"])), record["deals"][0]["dealer"])
    holder = first.holder(card("JC"))
    d1, d2, d3 = result["deals"]
    assert holder != (d1["dealer"] + 1) % 4 and d1["tricks"][0]["leader"] == holder
    assert d2["dealer"] == holder and d2["tricks"][0]["leader"] == (holder + 1) % 4
    assert d3["dealer"] == (holder + 1) % 4 and d3["tricks"][0]["leader"] == (d3["dealer"] + 1) % 4
    assert [d["events"] for d in result["deals"]] == [
        ["under_five"],
        ["two_or_fewer"],
        ["no_tricks", "all_tricks"],
    ]
    assert result["penalty"] == [6, 6] and result["loser"] == 0 and result["title"] == "goat"
