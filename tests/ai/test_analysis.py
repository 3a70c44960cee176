"""The analysis of a finished deal names the mistakes made in hand-built deals where they are known."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, Play, card, view_for
from bot.engine.ai import analysis
from bot.engine.ai.base import make_player
from bot.engine.errors import RecordError
from tests.ai.test_blunders import SHMON_LED, SURE, position


def played_out(deal: Deal, seed: int = 0) -> Deal:
    """``deal`` finished by the rule player at every seat."""
    easy, rng = make_player("easy"), random.Random(seed)
    while not deal.over:
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, easy.decide(view_for(deal, seat), rng))
    return deal


def with_blunder(given: dict[int, str], plays: list[str], blunder: str) -> Deal:
    deal = position(given, plays)
    seat = deal.to_act
    assert seat is not None
    deal.apply(seat, Play(card(blunder)))
    return played_out(deal)


def test_analysis_names_the_queen_fed_to_the_opponents_shmon() -> None:
    # Seat 1 leads the шмон; seat 2 holds the ♣Q and the ♦9 and plays the queen: it is caught.
    deal = with_blunder(SHMON_LED, ["6C"], "QC")
    found = analysis.analyse(deal.record(), 2)
    first = found[0]
    assert (first.move, first.trick, first.played, first.reason) == (1, 1, card("QC"), "queen_caught")
    assert first.better != card("QC")
    assert first.loss >= 3.0 > analysis.Z * first.error  # a caught queen costs its pair 4


def test_analysis_names_a_poor_card_on_the_partners_sure_trick() -> None:
    # Seat 0's шмон lead wins the trick for sure; seat 2 adds the ♠Q (3 points, a high trump kept
    # for nothing) where the ♦10 gives the pair ten points.
    deal = with_blunder(SURE, ["6C", "8D"], "QS")
    found = analysis.analyse(deal.record(), 2)
    first = found[0]
    assert (first.move, first.played, first.better) == (2, card("QS"), card("TD"))
    assert first.reason == "fewer_points_to_partner"
    assert first.loss >= analysis.THRESHOLD


def test_analysis_is_the_same_every_time_and_lists_only_clear_mistakes() -> None:
    deal = with_blunder(SHMON_LED, ["6C"], "QC")
    record = deal.record()
    assert analysis.analyse(record, 2) == analysis.analyse(record, 2)
    for m in analysis.analyse(record, 2) + analysis.analyse(record, 0):
        assert m.loss >= analysis.THRESHOLD and m.loss > analysis.Z * m.error
        assert m.played != m.better
    assert len(analysis.analyse(record, 2, most=1)) == 1


def test_analysis_finds_nothing_where_the_seat_had_no_choice_or_chose_well() -> None:
    # The good card instead of the blunder: the ♦9 under the шмон.
    deal = with_blunder(SHMON_LED, ["6C"], "9D")
    assert all(m.move != 1 for m in analysis.analyse(deal.record(), 2))


def test_analysis_refuses_a_deal_that_is_not_over() -> None:
    deal = position(SHMON_LED, ["6C"])
    with pytest.raises(RecordError, match="missing"):
        analysis.analyse(deal.record(), 2)
