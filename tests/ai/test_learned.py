"""The ``learned`` level: its weights file, its policy, and strategy fusion cut at the next decision."""

from __future__ import annotations

import copy
import math
import random

import pytest

from bot.engine import Deal, Play, Rules, card, view_for
from bot.engine.ai.base import make_player
from bot.engine.ai.features import N_FEATURES, NAMES, view_features
from bot.engine.ai.learned import defused_values
from bot.engine.ai.model import packaged_policy
from bot.engine.ai.policy import ModelError, policy_from


def test_packaged_weights_load_and_give_probabilities() -> None:
    policy = packaged_policy()
    deal = Deal.shuffled(Rules.make("flip"), random.Random(2), dealer=0)
    while deal.phase.value != "play":
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, deal.legal_actions(seat)[0])
    seat = deal.to_act
    assert seat is not None
    _, rows = view_features(view_for(deal, seat))
    assert all(len(f) == N_FEATURES for _, f in rows)
    ps = policy.probs(policy.family("flip"), rows)
    assert math.isclose(sum(ps), 1.0) and all(p > 0 for p in ps)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["families"]["flip"].pop(),
            f"family 'flip' has shape {N_FEATURES - 1}, expected ({N_FEATURES},)",
        ),
        (lambda d: d["families"].pop("draw"), "family 'draw' has shape NoneType"),
        (lambda d: d["families"]["classic"].append(0.5), f"shape {N_FEATURES + 1}"),
        (lambda d: d["features"].reverse(), "trained for features"),
        (lambda d: d.update(format=99), "format 99"),
        (lambda d: d["families"]["tricks"].__setitem__(0, float("nan")), "not a finite number"),
    ],
)
def test_weights_of_the_wrong_shape_are_refused(change, message) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(packaged_policy().to_json())
    assert policy_from(data) == packaged_policy()
    change(data)
    with pytest.raises(ModelError, match=message.replace("(", r"\(").replace(")", r"\)")):
        policy_from(data)


def test_features_are_named_once() -> None:
    assert len(set(NAMES)) == len(NAMES) == N_FEATURES


def test_the_next_card_is_chosen_alike_in_worlds_that_look_alike() -> None:
    """Strategy fusion in two worlds: the next card that wins in one loses in the other. PIMC counts the
    best card of each world (+1 in both); the player must choose before knowing which world he is in,
    so either next card is worth 0 on average. Worlds he can tell apart keep their own best card."""
    a, b = 1, 2
    same = ("hand", 0)
    nexts = {8: [(same, {a: 1.0, b: -1.0}), (same, {a: -1.0, b: 1.0})]}
    assert defused_values(nexts, [1.0, 1.0]) == {8: [1.0, -1.0]}
    told_apart = {8: [(("x",), {a: 1.0, b: -1.0}), (("y",), {a: -1.0, b: 1.0})]}
    assert defused_values(told_apart, [1.0, 1.0]) == {8: [1.0, 1.0]}
    # The weights decide which card a group takes.
    assert defused_values(nexts, [1.0, 3.0]) == {8: [-1.0, 1.0]}


def replay(preset: str, deck: str, dealer: int, moves: str) -> Deal:
    """A deal of ``preset`` dealt from ``deck`` (card codes, top first) with ``moves`` (card codes) played."""
    deal = Deal(Rules.make(preset), [card(c) for c in deck.split()], dealer=dealer)
    for code in moves.split():
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, Play(card(code)))
    return deal


def choices(level: str, deal: Deal, seeds: int = 3) -> list[str]:
    seat = deal.to_act
    assert seat is not None
    view = view_for(deal, seat)
    out = []
    for s in range(seeds):
        action = make_player(level).decide(view, random.Random(s))
        assert isinstance(action, Play)
        out.append(action.card.code)
    return out
