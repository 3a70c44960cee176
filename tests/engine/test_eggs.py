"""RULES.md §2 scoring (and seed 000, "яйца"): at the end of the match the losing pair draws eggs."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.engine import KozelError, Match, RecordError, Rules, card, cards, deck_for, result_of
from bot.engine.eggs import EggDraw, draw_egg_cards, egg_number
from tests.engine.test_common_rules import _result

RECORDS = Path(__file__).resolve().parents[1] / "records"


def _match_with_eggs(rules: Rules, eggs: int) -> Match:
    """A match that had ``eggs`` 60-60 deals and then ended with pair B the goat."""
    match = Match(rules, dealer=0)
    for _ in range(eggs):
        match.add(_result(penalty=(0, 0), events=("eggs",)))
    while not match.over:
        match.add(_result(penalty=(0, 6)))
    return match


def test_eggs_card_numbers_face_value_and_as_in_ochko() -> None:
    numbers = [egg_number(c) for c in cards("6S 7S 8S 9S TS JS QS KS AS")]
    assert numbers == [6, 7, 8, 9, 10, 2, 3, 4, 11]


def test_eggs_a_pair_per_egg_diameter_then_weight_summed() -> None:
    draw = EggDraw.of(cards("AH 7C 9D QS TS 6D"))
    assert draw.pairs == ((card("AH"), card("7C")), (card("9D"), card("QS")), (card("TS"), card("6D")))
    assert (draw.diameter, draw.weight) == (11 + 9 + 10, 7 + 3 + 6)
    assert draw.to_json() == {
        "pairs": [["AH", "7C"], ["9D", "QS"], ["TS", "6D"]],
        "diameter": 30,
        "weight": 16,
    }


@pytest.mark.parametrize(
    ("rules", "size"),
    [
        (Rules.make("classic"), 36),
        (Rules.make("flip"), 32),
        (Rules.make("flip", deck=36), 36),
        (Rules.make("draw"), 32),
    ],
)
def test_eggs_drawn_once_when_the_match_ends_in_every_preset(rules: Rules, size: int) -> None:
    match = Match(rules, dealer=0)
    match.add(_result(penalty=(0, 0), events=("eggs",)))
    assert match.draw_eggs(random.Random(1)) is None and match.egg_cards == ()  # not over yet
    match.add(_result(penalty=(0, 0), events=("eggs",)))
    while not match.over:
        match.add(_result(penalty=(0, 2)))
    draw = match.draw_eggs(random.Random(7))
    assert draw is not None and len(draw.pairs) == 2 and match.eggs_to_draw == 2
    assert all(c in deck_for(size) for c in match.egg_cards)
    assert all(d != w for d, w in draw.pairs)
    # The same randomness draws the same cards, and a second draw keeps the first.
    assert match.egg_cards == draw_egg_cards(size, 2, random.Random(7))
    assert match.draw_eggs(random.Random(8)) == draw


def test_eggs_no_eggs_nothing_drawn() -> None:
    match = _match_with_eggs(Rules.make("classic"), 0)
    assert match.draw_eggs(random.Random(1)) is None and match.egg_cards == ()


def test_eggs_not_capped_a_deck_run_out_is_shuffled_again() -> None:
    match = _match_with_eggs(Rules.make("classic", match_target=6), 25)
    draw = match.draw_eggs(random.Random(3))
    assert draw is not None and len(draw.pairs) == 25
    first_deck = match.egg_cards[:36]
    assert sorted(c.id for c in first_deck) == list(range(36))  # 18 pairs off one deck, no card twice
    assert draw.diameter == sum(egg_number(d) for d, _ in draw.pairs)


def test_eggs_set_from_a_record_must_fit_the_match() -> None:
    match = _match_with_eggs(Rules.make("flip"), 2)
    with pytest.raises(KozelError, match="3 egg cards given, but the match has 4"):
        match.set_egg_cards(cards("AH 7C 9D"))
    with pytest.raises(KozelError, match="not in the 32-card deck: 6D"):
        match.set_egg_cards(cards("AH 7C 9D 6D"))
    match.set_egg_cards(cards("AH 7C 9D KD"))
    assert match.egg_draw is not None and match.egg_draw.diameter == 20


def test_eggs_match_record_replays_the_pairs_and_sums() -> None:
    rec = json.loads((RECORDS / "classic_match_eggs.json").read_text(encoding="utf-8"))
    out = result_of(rec)
    assert out["eggs"] == 2 and out["loser"] is not None
    codes = rec["egg_cards"]
    assert out["egg_draw"]["pairs"] == [codes[0:2], codes[2:4]]
    numbers = [egg_number(card(c)) for c in codes]
    assert (out["egg_draw"]["diameter"], out["egg_draw"]["weight"]) == (
        numbers[0] + numbers[2],
        numbers[1] + numbers[3],
    )
    with pytest.raises(RecordError, match="egg_cards: 2 egg cards given, but the match has 4"):
        result_of({**rec, "egg_cards": codes[:2]})
    with pytest.raises(RecordError, match="egg_cards: not a card code"):
        result_of({**rec, "egg_cards": ["ZZ", *codes[1:]]})
    # A record without the draw still replays, without it.
    assert "egg_draw" not in result_of({k: v for k, v in rec.items() if k != "egg_cards"})
