"""RULES.md §5, ``dummy`` with ``blind_rotates``: the blind passes to the next person each deal and every
person keeps his own score — each deal's penalty (a caught ♣Q's too) to each person of the losing side,
the goat(s) the first person(s) to reach the target. The engine's blind stays seat 3; the people move
over seats 0-2 (docs/rules-notes.md)."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import Deal, Match, Rules, RulesError, result_of
from bot.engine.invariants import conservation_problems
from bot.engine.result import DealResult
from tests.engine.helpers import fill

ROTATES = Rules.make("dummy", blind_rotates=True)
RECORDS = Path(__file__).resolve().parents[1] / "records"


def _result(penalty: tuple[int, int], *events: str, void: bool = False) -> DealResult:
    return DealResult(
        trump=None, tricks=(), points=(0, 0), tricks_won=(0, 0), events=events, penalty=penalty, void=void
    )


def test_dummy_blind_rotates_is_an_option_of_dummy_only() -> None:
    assert ROTATES.blind_rotates and ROTATES.individual_scores and ROTATES.people == 3
    assert ROTATES.blind_seats == (3,) and Rules.parse(ROTATES.to_json()) == ROTATES
    assert not Rules.make("dummy").individual_scores and Rules.make("dummy").people == 3
    with pytest.raises(RulesError, match="blind_rotates: unknown option"):
        Rules.make("two_dummies", blind_rotates=True)
    with pytest.raises(RulesError, match="blind_rotates and score_winners cannot be combined"):
        Rules.make("dummy", blind_rotates=True, score_winners=True)


def test_dummy_blind_rotates_passes_the_blind_to_the_next_person_each_deal() -> None:
    seatings = [ROTATES.seating(n) for n in range(1, 5)]
    assert seatings == [(0, 1, 2, None), (1, 2, 0, None), (2, 0, 1, None), (0, 1, 2, None)]
    # The blind's partner (seat 1) is the next person each deal; the order around the table is kept.
    assert [s[1] for s in seatings] == [1, 2, 0, 1]
    # Without the option, the people stay in their seats.
    assert Rules.make("dummy").seating(2) == (0, 1, 2, None)


def test_dummy_blind_rotates_charges_each_deals_penalty_to_each_person_of_the_losing_side() -> None:
    match = Match(ROTATES, dealer=0)
    assert match.scores == [0, 0, 0] and match.seating == (0, 1, 2, None)
    match.add(_result((0, 2)))  # seats 1 and 3 lost: person 1 (the blind is no one's)
    assert match.scores == [0, 2, 0] and match.seating == (1, 2, 0, None)
    match.add(_result((2, 0)))  # seats 0 and 2 lost: persons 1 and 0
    assert match.scores == [2, 4, 0]
    match.add(_result((0, 4)))  # seats 1 and 3 lost: seat 1 is person 0 now
    assert match.scores == [6, 4, 0] and not match.over and match.loser is None


def test_dummy_blind_rotates_caught_queen_is_charged_to_each_person_of_its_side() -> None:
    # Seat 1 holds the ♣Q and seat 0 leads the шмон: the ♣Q is caught at once, seat 1's side charged 4.
    deal = Deal(ROTATES, fill(ROTATES, {0: "6C JC", 1: "QC"}, dealer=3), dealer=3)
    deal.play(0, ROTATES.top_trump)
    deal.play(1, next(c for c in deal.hand(1) if c.code == "QC"))
    assert deal.result is not None and "queen_caught" in deal.result.events
    assert deal.result.penalty == (0, 4)
    match = Match(ROTATES, dealer=3)
    match.add(_result((0, 0), "brag_won"))  # deal 1 a plain one, so deal 2 has seat 1 = person 2
    assert match.seating[1] == 2
    match.add(deal.result)
    assert match.scores == [0, 0, 4]


def test_dummy_blind_rotates_void_deal_is_dealt_again_with_the_same_seating() -> None:
    match = Match(ROTATES, dealer=1)
    match.add(_result((2, 0)))
    before = match.seating
    match.add(_result((0, 0), "redeal", void=True))
    assert match.seating == before == (1, 2, 0, None) and match.deal_no == 2 and match.scores == [2, 0, 2]


def test_dummy_blind_rotates_the_deal_passes_by_seat_number() -> None:
    # RULES.md §5 [settled]: the ♣J holder's seat deals deal 2 (here the blind's, seat 3), then the
    # deal goes to the next seat by number (0, 1, …), whoever sits there this deal.
    deal = Deal(ROTATES, fill(ROTATES, {3: "JC"}, dealer=1), dealer=1)
    assert deal.jack_holder == 3
    match = Match(ROTATES, dealer=1)
    match.add(dataclasses.replace(_result((2, 0)), jack_holder=deal.jack_holder))
    dealers = [match.dealer]
    for _ in range(4):
        match.add(_result((0, 2)))
        dealers.append(match.dealer)
    assert dealers == [3, 0, 1, 2, 3] and match.seating == ROTATES.seating(match.deal_no)


def test_dummy_blind_rotates_goat_is_the_first_person_to_reach_the_target() -> None:
    match = Match(Rules.make("dummy", blind_rotates=True, match_target=6), dealer=0)
    match.add(_result((0, 4)))  # person 1: 4
    match.add(_result((0, 2)))  # seat 1 is person 2: 2
    assert not match.over
    match.add(_result((0, 4)))  # seat 1 is person 0: 4
    match.add(_result((0, 2)))  # person 1 again: 6, the goat
    assert match.scores == [4, 6, 2] and match.over and match.goats == (1,) and match.title == "goat"
    assert match.loser is None


def test_dummy_blind_rotates_two_people_at_the_target_at_once_are_both_goats() -> None:
    match = Match(Rules.make("dummy", blind_rotates=True, match_target=4), dealer=0)
    match.add(_result((4, 0)))  # seats 0 and 2: persons 0 and 2 reach 4 together
    assert match.goats == (0, 2) and match.title == "goat" and match.scores == [4, 0, 4]
    drivers = Match(Rules.make("dummy", blind_rotates=True, match_target=4), dealer=0)
    drivers.add(_result((0, 6)))  # 6 of 4: two past the target
    assert drivers.goats == (1,) and drivers.title == "goat_with_drivers"


def test_dummy_blind_rotates_golden_match_shows_the_rotation_and_every_persons_total() -> None:
    record = json.loads((RECORDS / "dummy_match_blind_rotates.json").read_text(encoding="utf-8"))
    result = result_of(record)
    deals = result["deals"]
    assert [(d["deal_no"], d["people"]) for d in deals] == [
        (1, [0, 1, 2, None]),
        (2, [1, 2, 0, None]),
        (2, [1, 2, 0, None]),  # the redeal: dealt again under the same number, the same seating
        (3, [2, 0, 1, None]),
        (4, [0, 1, 2, None]),
    ]
    # Deal 1: the ♣Q of seat 1 (person 1) caught, 4 to person 1 alone; the blind is no one's.
    assert deals[0]["events"] == ["queen_caught"] and deals[0]["totals"] == [0, 4, 0]
    assert deals[1]["events"][-1] == "redeal" and deals[1]["totals"] == [0, 4, 0]
    assert deals[2]["penalty"] == [0, 2] and deals[2]["totals"] == [0, 4, 2]  # seat 1: person 2
    assert deals[3]["penalty"] == [0, 2] and deals[3]["totals"] == [2, 4, 2]  # seat 1: person 0
    assert deals[4]["penalty"] == [0, 4] and deals[4]["totals"] == [2, 8, 2]
    assert result["scores"] == [2, 8, 2] and result["goats"] == [1] and result["title"] == "goat_with_drivers"
    assert "loser" not in result and "penalty" not in result


def _checked_play(deal: Deal, rng: random.Random) -> Deal:
    while not deal.over:
        assert conservation_problems(deal) == [], deal.record()
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, rng.choice(deal.legal_actions(seat)))
    assert conservation_problems(deal) == []
    return deal


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, 1))
def test_dummy_blind_rotates_random_matches_end_with_the_goats(seed: int, which: int) -> None:
    rules = [ROTATES, Rules.make("dummy", blind_rotates=True, deck=32, brag="mirror", match_target=8)][which]
    rng = random.Random(seed)
    match = Match(rules, dealer=rng.randrange(4))
    records = []
    while not match.over:
        seating = match.seating
        assert sorted(p for p in seating if p is not None) == [0, 1, 2] and seating[3] is None
        assert seating == rules.seating(match.deal_no)
        deal = _checked_play(match.new_deal(rng=rng), rng)
        assert deal.result is not None
        records.append({k: v for k, v in deal.record().items() if k != "rules"})
        before = list(match.scores)
        match.add(deal.result)
        for seat in range(3):
            person = seating[seat]
            assert person is not None
            assert match.scores[person] - before[person] == deal.result.charged(seat)
        assert len(match.results) < 500
    target = rules.options.match_target
    assert match.goats and all(match.scores[g] >= target for g in match.goats)
    assert all(match.scores[p] < target for p in range(3) if p not in match.goats)
    assert match.loser is None and match.title in ("goat", "goat_with_drivers")
    out = result_of({"rules": rules.to_json(), "deals": records})
    assert out["scores"] == match.scores and out["goats"] == list(match.goats) and out["title"] == match.title
    assert [d["people"] for d in out["deals"]] == [list(rules.seating(d["deal_no"])) for d in out["deals"]]
