"""Random legal games for every preset, checked against the invariants; determinism; the search path."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import Deal, Match, Phase, Rules, deck_for, view_for
from bot.engine.play import play_out
from bot.engine.scoring import score_deal
from tests.engine.helpers import play_out as play_deal
from tests.engine.reference import RefDeal, play_random

RULESETS = [
    Rules.make("classic"),
    Rules.make("classic", brag="big_pants", pointless_trick_saves=True),
    Rules.make("classic", brag="mirror", jack_order="literal"),
    Rules.make("classic", brag_choice=["fishing", "pants"], score_winners=True),
    Rules.make("classic", deck=32, must_trump_when_void=True, matadors=True),
    Rules.make("classic", deck=24, first_lead_trump_ace=True, trump_suit="C"),
    Rules.make("flip"),
    Rules.make("flip", trump_mode="declare", pass_on_bad_turn=True),
    Rules.make("flip", trump_mode="jack_declares", redeal_four_queens=True),
    Rules.make("flip", trump_mode="first_card"),
    Rules.make("draw"),
    Rules.make("flip", deck=36),
    Rules.make("flip", deck=36, trump_mode="first_card", pass_on_bad_turn=True),
    Rules.make("tricks"),
    Rules.make("tricks", must_trump_when_void=True, match_target=6),
    Rules.make("sochi4"),
    Rules.make("sochi4", brag_rotation=["fishing", "big_pants"], must_trump_when_void=True),
    Rules.make("dummy"),
    Rules.make("dummy", deck=32, brag="mirror", must_trump_when_void=True),
    Rules.make("dummy", blind_rotates=True, brag="fishing", matadors=True),
    Rules.make("two_dummies"),
    Rules.make("two_dummies", brag="fishing", matadors=True),
]
IDS = [f"{r.preset}-{i}" for i, r in enumerate(RULESETS)]


def check_invariants(deal: Deal) -> None:
    """The invariants of a finished deal."""
    r = deal.result
    assert deal.over and r is not None
    if r.void:
        assert r.penalty == (0, 0) and not r.tricks
        return
    played = [c for t in r.tricks for _, c in t.plays]
    assert len(played) == len(set(played)), "a card was played twice"
    held = [c for s in range(4) for c in deal.hand(s)]
    assert sorted(played + held + list(deal.stock), key=lambda c: c.id) == list(
        deck_for(deal.rules.deck_size)
    )
    if "queen_caught" in r.events:
        assert r.tricks[-1].winner is None
        assert sum(1 for p in r.penalty if p) == 1
    else:
        assert not held and not deal.stock, "a finished deal leaves no card"
        assert sum(r.points) == 120
        assert sum(len(t.plays) for t in r.tricks) == deal.rules.deck_size
        if deal.rules.by_tricks:
            check_scored_by_tricks(deal)
        elif r.points[0] != r.points[1]:
            winner = 0 if r.points[0] > r.points[1] else 1
            assert r.loser == 1 - winner
            # Under score_winners the deal's winner is credited; otherwise only the loser is charged.
            credited = winner if getattr(deal.rules.options, "score_winners", False) else 1 - winner
            assert r.penalty[1 - credited] == 0, "scoring charged the wrong pair"
            assert r.penalty[credited] > 0


def check_scored_by_tricks(deal: Deal) -> None:
    """``tricks``: the pair with fewer tricks (of nine) is charged 2, 4 with two or fewer, 6 with none,
    whatever the card points; no queen is caught and no eggs are laid."""
    r = deal.result
    assert r is not None and sum(r.tricks_won) == 9
    loser = 0 if r.tricks_won[0] < r.tricks_won[1] else 1
    n = r.tricks_won[loser]
    assert r.loser == loser and r.penalty[1 - loser] == 0
    assert r.penalty[loser] == (6 if n == 0 else 4 if n <= 2 else 2)
    assert ("all_tricks" in r.events) == (n == 0)
    assert not {"queen_caught", "eggs", "para", "cherpak", "shestak"} & set(r.events)


def play_checked(deal: Deal, rng: random.Random) -> Deal:
    """Play to the end, checking that someone can always act and that views hide other hands."""
    while not deal.over:
        seat = deal.to_act
        assert seat is not None
        acts = deal.legal_actions(seat)
        assert acts, "a legal move always exists until the deal ends"
        assert all(not deal.legal_actions(s) for s in range(4) if s != seat)
        view = view_for(deal, seat)
        assert set(view.hand) == set(deal.hand(seat))
        assert not set(view.unseen()) & set(view.hand)
        deal.apply(seat, rng.choice(acts))
    return deal


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 3))
def test_random_legal_deals_keep_the_invariants(rules: Rules, seed: int, dealer: int) -> None:
    rng = random.Random(seed)
    deal = play_checked(Deal.shuffled(rules, rng, dealer), rng)
    check_invariants(deal)
    if rules.preset in ("classic", "tricks", "sochi4"):  # a later deal: the brag, or tricks' other leader
        brag_deal = play_checked(Deal.shuffled(rules, rng, dealer, deal_no=2), rng)
        check_invariants(brag_deal)
    if rules.brag_rotates:  # the later rounds' kinds
        for deal_no in (5, 9):
            check_invariants(play_checked(Deal.shuffled(rules, rng, dealer, deal_no=deal_no), rng))


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_matches_end_with_a_goat(rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    match = Match(rules, dealer=rng.randrange(4))
    while not match.over:
        deal = match.new_deal(rng=rng)
        play_deal(deal, rng)
        assert deal.result is not None
        match.add(deal.result)
        assert len(match.results) < 500
    if rules.individual_scores:
        # ``blind_rotates``: the goats are people (tests/engine/test_dummy_rotates.py).
        assert match.goats and max(match.scores) >= rules.options.match_target and match.loser is None
        return
    assert match.loser in (0, 1) and match.title in ("goat", "goat_with_drivers")
    last = match.results[-1]
    assert max(match.penalty) >= rules.options.match_target or (
        "all_tricks" in last.events and last.loser == match.loser
    )


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_determinism_same_seed_same_deal(rules: Rules) -> None:
    records = []
    for _ in range(2):
        rng = random.Random(1234)
        deal = play_deal(Deal.shuffled(rules, rng, dealer=1), rng)
        records.append(deal.record())
    assert records[0] == records[1]
    rng = random.Random(1235)
    assert play_deal(Deal.shuffled(rules, rng, dealer=1), rng).record() != records[0]


@pytest.mark.parametrize(
    ("preset", "deck"),
    [("classic", 36), ("flip", 32), ("flip", 36), ("draw", 32), ("tricks", 36)],
    ids=str,
)
def test_kernel_play_out_matches_the_list_reference(preset: str, deck: int) -> None:
    """The play kernel's random play-out and the independent list-based reference (RULES.md alone) play
    the same cards from the same position with the same random numbers: same tricks, points, penalty."""
    rules = Rules.make(preset, deck=deck) if preset in ("classic", "flip") else Rules.make(preset)
    rng = random.Random(99)
    checked = 0
    for i in range(200):
        deal = Deal.shuffled(rules, rng, dealer=i % 4)
        while deal.phase not in (Phase.PLAY, Phase.OVER):
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        # Start some play-outs mid-deal, even mid-trick.
        for _ in range(rng.randrange(12)):
            if deal.over:
                break
            assert deal.to_act is not None
            deal.play(deal.to_act, rng.choice(deal.legal_plays(deal.to_act)))
        st = deal.play_state
        if deal.over or st is None:
            continue
        assert deal.trump is not None
        ref = RefDeal(
            preset,
            rules.deck_size,
            deal.trump.value,
            [deal.hand(s) for s in range(4)],
            st.leader,
            deal.stock,
            must_trump=rules.options.must_trump_when_void,
            restricted=st.restricted,
            trick=deal.trick,
            points=deal.points.copy(),
            tricks_won=deal.tricks_won.copy(),
        )
        before = deal.record()
        seed = rng.randrange(2**32)
        w = play_out(st.copy(), None, random.Random(seed).random)
        assert deal.record() == before, "a play-out of the deal's position must not change the deal"
        penalty = play_random(ref, random.Random(seed).random)
        score = score_deal(rules, (w.pts[0], w.pts[1]), (w.won[0], w.won[1]), w.queen_pair)
        assert (w.pts, w.won, w.queen_pair) == (ref.points, ref.tricks_won, ref.queen_pair)
        assert score.penalty == penalty
        checked += 1
    assert checked > 100
