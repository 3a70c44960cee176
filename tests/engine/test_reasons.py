"""Every refusal of the engine carries a machine-readable reason that agrees with its message."""

from __future__ import annotations

import pickle
import random

import pytest

from bot.engine import (
    ALL_CARDS,
    Action,
    Brag,
    Cut,
    Deal,
    Declare,
    Exchange,
    ExchangeGive,
    IllegalMoveError,
    Phase,
    Play,
    Rules,
    Swap,
    SwapReturn,
)
from bot.engine.cards import Suit
from bot.engine.errors import Reason

#: What each reason's message says (the words the bot used to look for before reasons existed).
_WORDS = {
    Reason.DEAL_OVER: "the deal is over",
    Reason.NOT_IN_HAND: "not in his hand",
    Reason.FIRST_LEAD: "the first lead must be",
    Reason.TRUMP_LEAD: "may not be led",
    Reason.MUST_FOLLOW: "must follow",
    Reason.MUST_FOLLOW_TRUMP: "a trump was led",
    Reason.MUST_TRUMP: "must play a trump",
    Reason.BY_THE_LAST: "'by the last'",
}

#: Reasons only the seat to act is given.
_THE_SEAT_TO_ACT = frozenset(
    (Reason.WRONG_PHASE, Reason.NOT_ALLOWED, Reason.MUST_FOLLOW, Reason.MUST_FOLLOW_TRUMP, Reason.MUST_TRUMP)
)

_CASES = [
    (Rules.make("classic"), 1),
    (Rules.make("classic", first_lead_trump_ace=True), 1),
    (Rules.make("classic"), 2),
    (Rules.make("flip"), 1),
    (Rules.make("flip", trump_mode="jack_declares"), 1),
    (Rules.make("flip", trump_mode="declare"), 1),
    (Rules.make("draw"), 1),
]


def _probes(deal: Deal) -> list[Action]:
    """Decisions of every kind, legal or not, to try on a position."""
    some = ALL_CARDS[:2]
    return [
        *(Play(c) for c in ALL_CARDS),
        Declare(None),
        Swap(True),
        SwapReturn(ALL_CARDS[0]),
        Exchange(True),
        Brag((some[0],)),
        Brag(tuple(some)),
        ExchangeGive(tuple(some)),
        Cut(1),
    ]


def _check(deal: Deal, seat: int, action: Action, seen: set[Reason]) -> None:
    try:
        deal.copy().apply(seat, action)
    except IllegalMoveError as error:
        e = error
        reason, text = e.reason, str(e)
    else:
        return
    seen.add(reason)
    if reason in _WORDS:
        assert _WORDS[reason] in text, (reason, text)
    if reason is Reason.NOT_YOUR_TURN:
        assert seat != deal.to_act, text
    if reason in _THE_SEAT_TO_ACT:
        assert seat == deal.to_act, (reason, text)
    if reason is Reason.MUST_FOLLOW:
        # The suit to follow is named, and it is the led card's plain suit.
        led = deal.trick[0][1]
        assert e.suit is led.suit and deal.tables is not None and not deal.tables.is_trump(led), text
    if reason is Reason.MUST_FOLLOW_TRUMP:
        assert deal.tables is not None and deal.tables.is_trump(deal.trick[0][1]), text
    if reason is Reason.WRONG_PHASE and isinstance(action, Play):
        assert deal.phase is not Phase.PLAY, text
    if reason is Reason.NOT_ALLOWED:
        assert not isinstance(action, Play) and deal.phase is not Phase.PLAY, text


def _walk(rules: Rules, deal_no: int, rng: random.Random, deals: int) -> set[Reason]:
    """Play ``deals`` random deals, probing every seat with every kind of decision at each step."""
    seen: set[Reason] = set()
    for _ in range(deals):
        deal = Deal.shuffled(rules, rng, dealer=rng.randrange(4), deal_no=deal_no)
        while True:
            for seat in range(4):
                for action in _probes(deal):
                    _check(deal, seat, action, seen)
            if deal.over:
                break
            seat = deal.to_act
            assert seat is not None
            deal.apply(seat, rng.choice(deal.legal_actions(seat)))
    return seen


@pytest.mark.parametrize(("rules", "deal_no"), _CASES, ids=lambda v: getattr(v, "preset", v))
def test_every_refusal_names_its_reason(rules: Rules, deal_no: int) -> None:
    seen = _walk(rules, deal_no, random.Random(deal_no), deals=6)
    assert {Reason.DEAL_OVER, Reason.NOT_YOUR_TURN, Reason.NOT_IN_HAND} <= seen


def test_every_reason_is_met_in_play() -> None:
    """Across the presets the probes meet every reason (so the checks above cover each)."""
    seen: set[Reason] = set()
    for rules, deal_no in _CASES:
        seen |= _walk(rules, deal_no, random.Random(7), deals=3)
    assert seen == set(Reason)


def test_the_reason_survives_pickling() -> None:
    error = IllegalMoveError("seat 1 cannot play QC: he must follow spades", Reason.MUST_FOLLOW, Suit.SPADES)
    again = pickle.loads(pickle.dumps(error))
    assert isinstance(again, IllegalMoveError) and again.reason is Reason.MUST_FOLLOW
    assert again.suit is Suit.SPADES
    assert str(again) == str(error)
