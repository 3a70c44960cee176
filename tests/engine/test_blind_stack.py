"""RULES.md §5: the blind's stack is its cards in the order it received them — after a brag, what it
kept in the order received (under ``mirror`` and ``fishing`` the trumps in the order it took them),
then its top-up — under every brag kind, ``fishing`` too (issue 34, item 9: a brag that takes no
decision stacked the blind's cards in deck order). Deal records from before the fix (no ``version``)
replay as they were played."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, Phase, Rules, card, cards, deck_for, result_of
from bot.engine.cards import Card
from bot.engine.errors import RecordError
from bot.engine.rules import VERSION
from tests.engine.helpers import play_out

FISHING = Rules.make("dummy", brag="fishing")


def _fishing_deck() -> list[Card]:
    """A 36-card deck for deal 2 dealt by seat 2 (the blind, seat 3, brags first): the blind fishes
    from the middle the ♠Q (place 18), then the ♣J (place 17, earlier in the deck), then the ♥A, which
    it lays; its top-up comes from the top, the ♠7 first."""
    placed = {0: "7S", 17: "JC", 18: "QS", 19: "AH"}
    named = cards(" ".join(placed.values()))
    rest = [c for c in deck_for(36) if c not in named]
    random.Random(5).shuffle(rest)
    return [card(placed[i]) if i in placed else rest.pop() for i in range(36)]


def test_blind_stack_under_fishing_is_the_trumps_in_the_order_fished_then_the_top_up() -> None:
    deal = Deal(FISHING, _fishing_deck(), dealer=2, deal_no=2)
    assert deal.brag is not None and deal.brag.laid[0] == (3, (card("AH"),))
    assert deal.brag.took[3] == 2 and deal.tricks[0].winner == 3  # the ♥A took the brag trick
    # The blind leads the first trump it fished, the ♠Q; the ♣J (fished second) is next, then the ♠7.
    assert deal.phase is Phase.PLAY and deal.trick == [(3, card("QS"))]
    top_up = [c.code for c in deal.brag.received[3][3:]]
    assert [c.code for c in deal.stack(3)] == ["JC", *top_up] and top_up[0] == "7S"


def test_blind_stack_of_a_version_1_record_under_fishing_stays_in_deck_order() -> None:
    old = Deal(FISHING, _fishing_deck(), dealer=2, deal_no=2, version=1)
    assert old.trick == [(3, card("7S"))]  # as the engine played it before issue 34
    play_out(old, random.Random(1))
    record = old.record()
    assert "version" not in record and Deal(FISHING, _fishing_deck(), 2, 2).record()["version"] == VERSION
    # The record (no "version": 1) replays as it was played, the blind leading the ♠7.
    assert old.result is not None and result_of(record) == old.result.to_json()
    assert result_of(record)["tricks"][1]["plays"][0] == [3, "7S"]
    # Read as version 2 its blind leads the ♠Q, a trump: seat 0's recorded ♠A no longer follows.
    with pytest.raises(RecordError, match="move 0: seat 0 cannot play AS: a trump was led"):
        result_of({**record, "version": 2})
    with pytest.raises(RecordError, match="version"):
        result_of({**record, "version": VERSION + 1})


@pytest.mark.parametrize("preset", ["dummy", "two_dummies"])
@pytest.mark.parametrize("kind", ["pants", "mirror", "fishing"])
def test_blind_stack_after_the_brag_is_the_order_received_under_every_kind(preset: str, kind: str) -> None:
    rules = Rules.make(preset, brag=kind)
    checked = 0
    for seed in range(30):
        rng = random.Random(seed)
        deal = Deal.shuffled(rules, rng, dealer=seed % 4, deal_no=2)
        while deal.phase not in (Phase.PLAY, Phase.OVER):
            seat = deal.to_act
            assert seat is not None
            deal.apply(seat, rng.choice(deal.legal_actions(seat)))
        if deal.phase is not Phase.PLAY:
            continue
        assert deal.brag is not None
        for blind in rules.blind_seats:
            # What the blind kept, in the order received (a card received twice lies where it came
            # last), is what it plays from the first lead: its card in the trick, then its stack.
            now = {c.code for c in deal.hand(blind)} | {c.code for s, c in deal.trick if s == blind}
            order: list[str] = []
            for c in reversed(deal.brag.received[blind]):
                if c.code in now and c.code not in order:
                    order.append(c.code)
            played = [c.code for s, c in deal.trick if s == blind]
            assert played + [c.code for c in deal.stack(blind)] == order[::-1]
            checked += 1
    assert checked > 20
