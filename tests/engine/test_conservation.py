"""Card conservation: every card of the deck in exactly one place, in every state of every variant."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, Phase, Rules
from bot.engine.cards import card
from bot.engine.invariants import InvariantError, check, conservation_problems, replay_checked

VARIANTS = [
    ("classic", {}, 1),
    ("classic", {}, 2),
    ("classic", {"brag": "big_pants"}, 2),
    ("classic", {"brag": "mirror"}, 2),
    ("classic", {"brag": "fishing"}, 2),
    ("classic", {"deck": 32}, 2),
    ("classic", {"deck": 24}, 2),
    ("flip", {}, 1),
    ("flip", {"trump_mode": "declare"}, 1),
    ("flip", {"trump_mode": "jack_declares"}, 1),
    ("flip", {"trump_mode": "first_card"}, 1),
    ("draw", {}, 1),
    ("tricks", {}, 1),
    ("tricks", {"must_trump_when_void": True}, 2),
    ("sochi4", {}, 1),
    ("sochi4", {}, 2),
    ("sochi4", {}, 5),
    ("sochi4", {}, 9),
]


def _random_deal(rules: Rules, rng: random.Random, deal_no: int) -> Deal:
    return Deal.shuffled(rules, rng, dealer=rng.randrange(4), deal_no=deal_no)


@pytest.mark.parametrize(("preset", "options", "deal_no"), VARIANTS)
def test_every_state_of_random_deals_keeps_every_card_once(
    preset: str, options: dict[str, object], deal_no: int
) -> None:
    rules = Rules.make(preset, **options)  # type: ignore[arg-type]
    rng = random.Random(f"{preset}{options}{deal_no}")
    states = 0
    for _ in range(60):
        deal = _random_deal(rules, rng, deal_no)
        while True:
            assert conservation_problems(deal) == [], deal.record()
            states += 1
            if deal.over:
                break
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
    assert states > 60 * 5


def _mid_trick_deal() -> Deal:
    rng = random.Random(3)
    deal = _random_deal(Rules.make("classic"), rng, 1)
    while len(deal.tricks) < 2 or len(deal.trick) != 2:
        assert deal.to_act is not None
        deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
    return deal


def test_a_card_in_two_hands_is_named() -> None:
    deal = _mid_trick_deal()
    c = deal.hand(0)[0]
    other = 1
    deal.hands[other] |= c.bit
    problems = conservation_problems(deal)
    assert any(f"{c} is in hand 0 and in hand {other}" in p for p in problems), problems
    with pytest.raises(InvariantError, match=str(c)):
        check(deal)


def test_a_lost_card_is_named() -> None:
    deal = _mid_trick_deal()
    c = deal.hand(1)[0]
    deal.hands[1] &= ~c.bit
    problems = conservation_problems(deal)
    assert f"cards lost: {c}" in problems
    assert any("unequal size" in p for p in problems), problems


def test_a_card_both_played_and_held_is_named() -> None:
    deal = _mid_trick_deal()
    seat, played = deal.trick[0]
    deal.hands[seat] |= played.bit
    assert any(
        f"{played} is in hand {seat} and in the current trick" in p for p in conservation_problems(deal)
    )


def test_points_that_do_not_match_the_tricks_are_named() -> None:
    deal = _mid_trick_deal()
    deal.points[0] += 10
    assert any(p.startswith("card points") for p in conservation_problems(deal))


def test_the_brag_cards_laid_and_the_brag_stock_are_places_too() -> None:
    rules = Rules.make("classic")
    rng = random.Random(5)
    deal = _random_deal(rules, rng, 2)
    assert deal.phase is Phase.BRAG and deal.to_act is not None
    deal.apply(deal.to_act, deal.legal_actions(deal.to_act)[0])
    assert deal.brag is not None and deal.brag.laid and deal.brag.stock
    assert conservation_problems(deal) == []
    laid = deal.brag.laid[0][1][0]
    deal.brag.stock.append(laid)
    assert f"{laid} is in the brag's stock and in the brag cards laid" in conservation_problems(deal)


def test_draws_stock_is_a_place() -> None:
    rng = random.Random(9)
    deal = _random_deal(Rules.make("draw"), rng, 1)
    st = deal.play_state
    assert st is not None
    st.stock += (st.stock[st.drawn],)  # the top card again, at the bottom
    assert "1 card(s) listed twice in the stock" in conservation_problems(deal)


def test_a_void_deal_may_stop_with_cards_undealt() -> None:
    # flip: the turned-up cards run past a hand's size, so the deal passes with most cards undealt.
    deck = [card(c) for c in ["7C", "QS", "QH", "QD", "QC", "JS", "JH", "JD", "JC"]]
    rules = Rules.make("flip")
    rest = [c for c in Deal.shuffled(rules, random.Random(1), 0).deck if c not in deck]
    deal = Deal(rules, deck + rest, dealer=0)
    assert deal.over and deal.result is not None and deal.result.void
    assert conservation_problems(deal) == []


def test_replay_checked_checks_every_state_and_names_a_refused_move() -> None:
    rng = random.Random(2)
    deal = _random_deal(Rules.make("classic"), rng, 2)
    while not deal.over:
        assert deal.to_act is not None
        deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
    record = deal.record()
    replayed, problems = replay_checked(record, every_move=True)
    assert problems == [] and replayed is not None and replayed.over
    record["moves"].insert(3, dict(record["moves"][2]))
    _, problems = replay_checked(record)
    assert problems and problems[0].startswith("move 3 refused")
