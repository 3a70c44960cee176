"""Bot players under ``sochi4`` (RULES.md §5): every level plays each round's kind of brag legally."""

from __future__ import annotations

import random

from bot.engine import Deal, Rules, view_for
from bot.engine.ai import LEVELS, make_player

SOCHI4 = Rules.make("sochi4")


def test_sochi4_every_level_plays_each_rounds_brag_kind() -> None:
    for level in LEVELS:
        players = [make_player(level) for _ in range(4)]
        rngs = [random.Random(s) for s in range(4)]
        for deal_no in (1, 2, 5, 9):
            deal = Deal.shuffled(SOCHI4, random.Random(deal_no), dealer=deal_no % 4, deal_no=deal_no)
            while not deal.over:
                seat = deal.to_act
                assert seat is not None
                action = players[seat].decide(view_for(deal, seat), rngs[seat])
                assert action in deal.legal_actions(seat)
                deal.apply(seat, action)
            assert deal.result is not None
            if deal_no > 1 and not deal.result.void:
                assert deal.result.brag_kind == SOCHI4.options.brag_kind(deal_no).value  # type: ignore[union-attr]
