"""``sochi`` property tests: random legal deals and matches keep card conservation (the talon and the
discards are places) and the invariants; every record replays to the same result."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import Deal, Match, Rules, deck_for, result_of
from bot.engine.invariants import conservation_problems
from tests.engine.sochi_helpers import SOCHI

RULESETS = [SOCHI, Rules.make("sochi", brag_rotation=["big_pants", "fishing"], must_trump_when_void=True)]


def _checked_play(deal: Deal, rng: random.Random) -> Deal:
    while True:
        assert conservation_problems(deal) == [], deal.record()
        if deal.over:
            return deal
        seat = deal.to_act
        assert seat is not None
        acts = deal.legal_actions(seat)
        assert acts, (deal.phase, deal.record())
        deal.apply(seat, rng.choice(acts))


def _check_finished(deal: Deal) -> None:
    r = deal.result
    assert r is not None
    assert result_of(deal.record()) == r.to_json()
    if r.void:
        assert r.penalty == (0, 0) and r.events[-1] in ("talon_queen", "redeal")
        return
    lone = r.lone
    assert lone is not None and r.pair_of == tuple(0 if s == lone else 1 for s in range(3))
    assert len(r.talon) == 2 and len(r.discards) == 2 and "QC" not in [c.code for c in r.discards]
    played = [c for t in r.tricks for _, c in t.plays]
    held = [c for s in range(3) for c in deal.hand(s)]
    assert sorted(played + held + list(r.discards), key=lambda c: c.id) == list(deck_for(32))
    if "queen_caught" in r.events:
        assert r.penalty[0] == 4 and r.penalty[1] == 0  # the ♣Q is always the lone player's
        return
    assert not held and sum(r.points) == 120 and len(played) == 30
    assert all(len(t.plays) == 3 for t in r.tricks)
    assert r.points[0] == sum(t.points for t in r.tricks if t.winner == lone) + sum(
        c.points for c in r.discards
    )
    if r.points[0] != r.points[1]:
        loser = 0 if r.points[0] < r.points[1] else 1
        assert r.penalty[loser] > 0 and r.penalty[1 - loser] == 0


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dealer=st.integers(0, 2),
    deal_no=st.integers(1, 10),
    which=st.integers(0, 1),
)
def test_sochi_random_legal_deals_keep_every_card_in_one_place(
    seed: int, dealer: int, deal_no: int, which: int
) -> None:
    rng = random.Random(seed)
    deal = _checked_play(Deal.shuffled(RULESETS[which], rng, dealer, deal_no=deal_no), rng)
    _check_finished(deal)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_sochi_random_matches_end_with_the_goats(seed: int) -> None:
    rng = random.Random(seed)
    match = Match(SOCHI, dealer=rng.randrange(3))
    records = []
    while not match.over:
        deal = _checked_play(match.new_deal(rng=rng), rng)
        assert deal.result is not None
        _check_finished(deal)
        records.append({k: v for k, v in deal.record().items() if k != "rules"})
        before = list(match.scores)
        match.add(deal.result)
        if not deal.result.void:
            lone = deal.result.lone
            assert lone is not None
            for s in range(3):
                assert match.scores[s] - before[s] == deal.result.penalty[0 if s == lone else 1]
        assert len(match.results) < 500
    target = SOCHI.options.match_target
    assert match.goats and all(match.scores[g] >= target for g in match.goats)
    assert all(match.scores[p] < target for p in range(3) if p not in match.goats)
    assert match.loser is None and match.title in ("goat", "goat_with_drivers")
    out = result_of({"rules": SOCHI.to_json(), "deals": records})
    assert out["scores"] == match.scores and out["goats"] == list(match.goats) and out["title"] == match.title
