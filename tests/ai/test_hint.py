"""A hint's line of why names the rule its card follows, from what the seat sees."""

from __future__ import annotations

from bot.engine import Play, card, view_for
from bot.engine.ai.hint import why
from tests.ai.test_blunders import SHMON_LED, SURE, position


def test_hint_says_a_lead_is_a_lead() -> None:
    deal = position(SURE, [])
    view = view_for(deal, 0)
    assert why(view, Play(card("6C"))) == "lead_trump"
    assert why(view, Play(card("7S"))) == "lead_plain"


def test_hint_gives_points_to_the_partners_trick() -> None:
    # Seat 0's шмон holds the trick; seat 2's ♦10 is its richest card that does not take it over.
    view = view_for(position(SURE, ["6C", "8D"]), 2)
    assert why(view, Play(card("TD"))) == "give_points"


def test_hint_keeps_the_queen_from_the_opponents_shmon() -> None:
    # Seat 1 leads the ♣J; seat 2 follows with the ♦9 rather than the ♣Q: the шмон is still out.
    view = view_for(position(SHMON_LED, ["JC"]), 2)
    assert why(view, Play(card("9D"))) == "keep_queen"
    # Once the шмон is in the trick (led by an opponent), there is nothing left to fear.
    view = view_for(position(SHMON_LED, ["6C"]), 2)
    assert why(view, Play(card("9D"))) != "keep_queen"


def test_hint_takes_a_trick_from_the_opponents() -> None:
    # Seat 0 leads the ♠7; seat 1 (the other pair) may take it with the ♠K or the ♠10.
    view = view_for(position(SURE, ["7S"]), 1)
    assert why(view, Play(card("KS"))) == "take"
    assert why(view, Play(card("TS"))) == "take"


def test_hint_plays_the_cheapest_card_to_a_lost_trick() -> None:
    # Seat 0's шмон holds the trick; seat 1 cannot beat it: the cheapest trump is the rule.
    view = view_for(position(SURE, ["6C"]), 1)
    cheapest = min((a for a in view.legal if isinstance(a, Play)), key=lambda a: a.card.points)
    assert why(view, cheapest) == "cheapest"
