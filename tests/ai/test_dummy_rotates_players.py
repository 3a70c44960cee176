"""Bot players under ``dummy`` with ``blind_rotates`` (RULES.md §5): nothing new — each person's player
plays whatever seat the person has this deal (the blind's brag taken by its partner's), legally, to
the goat."""

from __future__ import annotations

import random

from bot.engine import Match, Rules, view_for
from bot.engine.ai import make_player

ROTATES = Rules.make("dummy", blind_rotates=True, match_target=6)


def test_dummy_blind_rotates_every_level_plays_a_whole_match_legally() -> None:
    for level in ("random", "easy"):
        players = [make_player(level) for _ in range(3)]  # by person
        rngs = [random.Random(s) for s in range(3)]
        match = Match(ROTATES, dealer=0)
        deck_rng = random.Random(5)
        partners = set()
        while not match.over:
            seating = match.seating
            partners.add(seating[1])
            deal = match.new_deal(rng=deck_rng)
            while not deal.over:
                seat = deal.to_act
                assert seat is not None
                person = seating[ROTATES.decider(seat)]
                assert person is not None
                action = players[person].decide(view_for(deal, seat), rngs[person])
                assert action in deal.legal_actions(seat), (level, action)
                deal.apply(seat, action)
            assert deal.result is not None
            match.add(deal.result)
        assert match.goats and max(match.scores) >= 6
        assert len(partners) >= 2, "the blind passed on"
