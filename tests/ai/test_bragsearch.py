"""``medium`` and ``hard`` search classic's brag — the cards laid, the mirror's cut, the kind under
``brag_choice`` (:mod:`bot.engine.ai.bragsearch`).

The worlds the search makes look to the seat exactly like the real deal (its whole view but the
order of its options); a position where the right brag is known — two aces to brag double, judged
on fresh decks behind the same first pair — is decided right against the rule, which never brags
double; the decisions are legal; the levels search the cards laid and the cut but not the kind by
default; and with the brag kinds left out of ``Budget.preplay`` they lay, cut and choose by the rule
player's rules, as the ablation's control does.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from bot.engine import Deal, Phase, Rules, view_for
from bot.engine.actions import Brag
from bot.engine.ai import bragsearch
from bot.engine.ai.easy import choose_other
from bot.engine.ai.search import MEDIUM, SearchPlayer
from bot.engine.ai.world import PAIR_OF
from bot.engine.cards import Card, cards, deck_for
from bot.engine.view import SeatView
from tests.ai.players import fixed

BRAGS = {
    "pants": Rules.make("classic"),
    "big_pants": Rules.make("classic", brag="big_pants"),
    "mirror": Rules.make("classic", brag="mirror"),
    "choice": Rules.make("classic", brag_choice=["pants", "mirror", "fishing"]),
    # A blind's brag: its partner chooses the blind's card from the pairs he sees it receive.
    "dummy": Rules.make("dummy"),
    "two_dummies": Rules.make("two_dummies"),
}
KINDS = ("brag", "lay", "cut", "brag_kind")


def brag_decisions(rules: Rules, seed: int, deals: int) -> Iterator[tuple[Deal, SeatView]]:
    """Every searched brag decision of ``deals`` brag deals played by the rules (the kind at random
    under ``brag_choice``, so every kind's decisions come up)."""
    rng = random.Random(seed)
    for i in range(deals):
        deal = Deal.shuffled(rules, rng, dealer=i % 4, deal_no=2)
        while not deal.over and deal.phase is not Phase.PLAY:
            seat = deal.to_act
            assert seat is not None
            view = view_for(deal, seat)
            if bragsearch.searched(view, KINDS):
                yield deal, view
            if view.phase is Phase.BRAG_KIND:
                deal.apply(seat, view.legal[int(rng.random() * len(view.legal))])
            else:
                deal.apply(seat, choose_other(view))


def same_view(a: SeatView, b: SeatView) -> bool:
    """Equal views, the options compared as a set (their order follows the order cards came in)."""
    return dataclasses.replace(a, legal=()) == dataclasses.replace(b, legal=()) and set(a.legal) == set(
        b.legal
    )


@pytest.mark.parametrize("name", sorted(BRAGS))
def test_brag_worlds_look_to_the_seat_like_the_real_deal(name: str) -> None:
    found = decisions = blinds = 0
    phases = set()
    for _, view in brag_decisions(BRAGS[name], seed=7, deals=25):
        decisions += 1
        phases.add(view.phase)
        blinds += view.seat in view.rules.blind_seats
        rng = random.Random(decisions)
        for _ in range(3):
            world = bragsearch.world(view, rng, bragsearch.candidates(view))
            if world is None:
                continue
            found += 1
            assert same_view(view_for(world, view.seat), view)
    assert decisions >= 25
    assert found >= 0.85 * 3 * decisions  # a world consistent with the view is found nearly always
    if name == "mirror":
        assert Phase.CUT in phases
    if name == "choice":
        assert Phase.BRAG_KIND in phases
    if name in ("dummy", "two_dummies"):
        assert blinds  # the blind's own brag came up, and was searched like a person's


def two_aces_first(rules: Rules, rng: random.Random) -> Deal:
    """A brag deal whose bragger (seat 0) gets ♠A and ♥A as his first pair, the rest shuffled."""
    aces = cards("AS AH")
    rest = [c for c in deck_for(rules.deck_size) if c not in aces]
    rng.shuffle(rest)
    deck: list[Card] = [aces[0], *rest, aces[1]]  # pants: the top card and the bottom card
    deal = Deal(rules, deck, dealer=3, deal_no=2)
    assert deal.phase is Phase.BRAG and deal.to_act == 0
    return deal


def test_brag_double_with_two_aces() -> None:
    # Two plain aces take both brag tricks whatever the others lay; the rule lays one card (the
    # higher). Judged on 300 fresh decks behind the same first pair — the worlds the bragger cannot
    # tell apart — and played to the end by the rules and the trick policy, either double beats the
    # single aces, and the search finds a double.
    rules = BRAGS["pants"]
    view = view_for(two_aces_first(rules, random.Random(0)), 0)
    doubles = [a for a in view.legal if isinstance(a, Brag) and len(a.cards) == 2]
    singles = [a for a in view.legal if isinstance(a, Brag) and len(a.cards) == 1]
    assert len(doubles) == 2 and choose_other(view) in singles
    means = {a: 0.0 for a in view.legal}
    n = 300
    for i in range(n):
        deal = two_aces_first(rules, random.Random(100 + i))
        careless = 1 - PAIR_OF[0] if i % 2 == 0 else None
        for a in view.legal:
            means[a] += bragsearch.finish(deal.copy(), 0, a, random.Random(i), careless) / n
    assert min(means[a] for a in doubles) > max(means[a] for a in singles) + 0.3
    searched = SearchPlayer("fixed-medium", fixed(MEDIUM, 200))
    assert searched.decide(view, random.Random(1)) in doubles


@pytest.mark.parametrize("name", ["pants", "mirror", "choice", "two_dummies"])
def test_searched_brag_decisions_are_legal(name: str) -> None:
    budget = fixed(MEDIUM, 3)
    player = SearchPlayer(
        "tiny-medium", dataclasses.replace(budget, preplay=(*budget.preplay, "lay", "brag_kind"))
    )
    for i, (_, view) in enumerate(brag_decisions(BRAGS[name], seed=11, deals=8)):
        assert player.decide(view, random.Random(i)) in view.legal


@pytest.mark.parametrize("name", ["pants", "mirror", "choice", "two_dummies"])
def test_without_brag_search_the_levels_brag_by_the_rules(name: str) -> None:
    budget = fixed(MEDIUM, 3)
    player = SearchPlayer(
        "rule", dataclasses.replace(budget, preplay=tuple(k for k in budget.preplay if k not in KINDS))
    )
    for i, (_, view) in enumerate(brag_decisions(BRAGS[name], seed=3, deals=6)):
        assert player.decide(view, random.Random(i)) == choose_other(view)


def test_sochi_brags_by_the_rules() -> None:
    # Three seats: the search's play-outs are for four, so sochi's brag keeps the rule.
    rules = Rules.make("sochi")
    asked = 0
    for seed in range(4):
        deal = Deal.shuffled(rules, random.Random(seed), dealer=0, deal_no=2)
        while deal.phase is Phase.BRAG:
            seat = deal.to_act
            assert seat is not None
            view = view_for(deal, seat)
            asked += len(view.legal) > 1
            assert not bragsearch.searched(view, KINDS)
            deal.apply(seat, choose_other(view))
    assert asked


def test_the_levels_search_the_braggers_lay_and_the_cut_but_not_the_others_lays_or_the_kind() -> None:
    # The searched kind, and the others' searched lays, lost to the rule in the arena (experiments/README.md,
    # "The README's bot-player account").
    assert {"brag", "cut"} <= set(MEDIUM.preplay) and not {"lay", "brag_kind"} & set(MEDIUM.preplay)
    _, view = next(brag_decisions(BRAGS["choice"], seed=1, deals=1))
    assert view.phase is Phase.BRAG_KIND
    assert not bragsearch.searched(view, MEDIUM.preplay) and bragsearch.searched(view, KINDS)
    lays = [v for _, v in brag_decisions(BRAGS["pants"], seed=2, deals=20) if v.phase is Phase.BRAG]
    assert any(v.seat == v.bragger for v in lays) and any(v.seat != v.bragger for v in lays)
    for v in lays:
        assert bragsearch.searched(v, MEDIUM.preplay) == (v.seat == v.bragger)
