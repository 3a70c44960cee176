"""The ``learned`` level: its weights file, its policy, and strategy fusion cut at the next decision."""

from __future__ import annotations

import copy
import dataclasses
import math
import random

import pytest

from bot.engine import Deal, Play, Rules, card, view_for
from bot.engine.ai.features import N_FEATURES, NAMES, view_features
from bot.engine.ai.learned import DEFUSED, LEARNED, LearnedPlayer, defused_values, learned_rollout
from bot.engine.ai.model import packaged_policy
from bot.engine.ai.policy import ModelError, policy_from
from bot.engine.ai.sample import true_world
from bot.engine.ai.trick import policy_rollout
from bot.engine.ai.world import World
from bot.engine.deal import Phase
from tests.ai.players import fixed


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


# The ♣Q positions of issue #37: the seat plays last to a trick both opponents have played to, holds
# the ♣Q, and the шмон is still out with an opponent. Dropping the ♣Q now is safe; kept, it is caught
# in most of the worlds the seat cannot tell apart. Found in `easy` self-play and kept where the
# exact solver over 300 worlds consistent with the view (the next card chosen alike in worlds that
# look alike) puts the ♣Q clearly first, and `hard` on 60 worlds keeps it at least once in three.
POSITIONS = {
    # flip (♦ trump): ♣Q ♠J ♥J on trick 6 of 8 — the hand of the example —, ♠9 led by an
    # opponent, the partner's ♦8 overtrumped by the other opponent's ♦9; the ♣7 is with that one.
    # Worth −2.0 a deal with the ♣Q, −2.9 keeping it; `hard` kept it 2/3.
    "flip": (
        "flip",
        "7D QC JC TH AS KD 9S 8H 9C KH TS KS AD 9H 7H QS 7C 8S TD AC QH JH 8C QD 9D TC 7S 8D KC JS JD AH",
        0,
        "AS 8S 7S KS 9C TC 8C AC AH AD 9H 7H KC KD JD QS 8H 7D KH TD 9S 8D 9D",
        60,
    ),
    # classic: ♣Q ♦6 ♠K on trick 7 of 9, an opponent's ♦J led, the partner's ♦8, the other's ♦7;
    # −1.45 with the ♣Q, −1.72 with the ♦6; `hard` kept it 3/3.
    "classic": (
        "classic",
        "7C QD KH JH JS JD 6S 7D KC JC QH 8C AS 9D QS TD 9S AC AD 8S 9H 7S 8D KD KS 8H TH AH 6D TS 6H 9C QC"
        " 6C TC 7H",
        1,
        "AC TC 8C 7C 8H 6H AH 9H 8S AS 7S 6S KC TS TH 9C 9S 9D AD JH 7H JS QD KH JD 8D 7D",
        200,
    ),
    # draw: ♣Q ♦Q ♣8 once the stock is out, trick 6: ♦8 led, the partner's ♣A, ♦J; −1.73 with the
    # ♣Q, −2.1 with the ♦Q; `hard` kept it 1/3.
    "draw": (
        "draw",
        "TS QC 8H 9H 7C 9D JS QS KS 7D 8D TD AH AD 8S KC 7H JH KD QH 7S TC QD TH JD 9S AS KH 8C JC AC 9C",
        1,
        "9H AH 7D 8H KS AD 8S KC TD TC 9D KD 7H JH TH KH 9S AS 7S TS 8D AC JD",
        60,
    ),
}


@pytest.mark.parametrize("name", list(POSITIONS))
def test_drops_the_queen_while_it_is_safe(name: str) -> None:
    preset, deck, dealer, moves, worlds = POSITIONS[name]
    deal = replay(preset, deck, dealer, moves)
    seat = deal.to_act
    assert seat is not None
    view = view_for(deal, seat)
    assert card("QC") in view.hand and len(view.trick) == 3
    player = LearnedPlayer("learned", fixed(LEARNED, worlds), DEFUSED)
    for s in range(3):
        action = player.decide(view, random.Random(s))
        assert action == Play(card("QC")), (name, s, action)


def _first_play(preset: str, seed: int) -> Deal:
    """A ``preset`` deal shuffled by ``seed``, its decisions before the first lead taken as offered."""
    deal = Deal.shuffled(Rules.make(preset), random.Random(seed), dealer=seed % 3)
    while deal.phase is not Phase.PLAY:
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, deal.legal_actions(seat)[0])
    return deal


@pytest.mark.parametrize("preset", ["classic", "flip", "draw", "tricks", "dummy", "sochi"])
def test_learned_playouts_draw_legal_cards_from_the_policy(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A play-out by the policy plays only legal cards to the deal's end, the same for the same
    random stream; the cards are drawn, so other streams reach other ends."""
    weights = packaged_policy().family(preset)
    played: list[int] = []
    play = World.play

    def checked(w: World, b: int) -> int:
        assert b & w.mask and b & (b - 1) == 0, "one legal card"
        played.append(b)
        return play(w, b)

    monkeypatch.setattr(World, "play", checked)
    ends = set()
    for seed in range(6):
        w = true_world(_first_play(preset, seed))
        for careless in (None, 0):
            v = learned_rollout(w, random.Random(seed), careless, weights)
            assert v == learned_rollout(w, random.Random(seed), careless, weights)
        ends |= {learned_rollout(w, random.Random(100 + r), None, weights) for r in range(8)}
    assert played, "the play-outs played"
    assert len(ends) > 1


def test_the_play_out_is_the_learned_policys_unless_turned_off() -> None:
    deal = _first_play("flip", 3)
    w = true_world(deal)
    on = LearnedPlayer("learned", LEARNED, DEFUSED)
    off = LearnedPlayer("learned", LEARNED, dataclasses.replace(DEFUSED, playouts=False))
    weights = packaged_policy().family("flip")
    for seed in range(5):
        assert on.playout(w.copy(), random.Random(seed), None) == learned_rollout(
            w, random.Random(seed), None, weights
        )
        assert off.playout(w.copy(), random.Random(seed), None) == policy_rollout(w, random.Random(seed))
