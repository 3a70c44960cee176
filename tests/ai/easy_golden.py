"""Seeded matches of ``easy`` in every seat, recorded move by move: the golden file that pins ``easy``'s
decisions across a rewrite of the engine underneath it (the same seed must give the same moves).

``python -m tests.ai.easy_golden`` writes ``tests/ai/golden/easy_decisions.json`` anew; only do that
when a change is meant to alter ``easy``'s play, and say so in the commit.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from bot.engine import Match, Rules, view_for
from bot.engine.ai import make_player

GOLDEN = Path(__file__).parent / "golden" / "easy_decisions.json"
#: (rules, matches): together a few hundred deals, classic's brag deals among them.
CASES: tuple[tuple[dict[str, Any], int], ...] = (
    ({"preset": "classic", "options": {}}, 14),
    ({"preset": "flip", "options": {}}, 10),
    ({"preset": "draw", "options": {}}, 12),
)
MAX_DEALS = 8


def play_matches(rules_json: dict[str, Any], matches: int) -> list[list[dict[str, Any]]]:
    """Each seeded match's deal records, ``easy`` deciding for every seat."""
    rules = Rules.parse(rules_json)
    player = make_player("easy")
    out = []
    for m in range(matches):
        rngs = [random.Random(1000 * m + s) for s in range(4)]
        match = Match(rules, dealer=m % 4)
        deals = []
        k = 0
        while not match.over and k < MAX_DEALS:
            deal = match.new_deal(rng=random.Random(7919 * m + k))
            while not deal.over:
                seat = deal.to_act
                assert seat is not None
                deal.apply(seat, player.decide(view_for(deal, seat), rngs[seat]))
            assert deal.result is not None
            deals.append(deal.record())
            match.add(deal.result)
            k += 1
        out.append(deals)
    return out


def generate() -> dict[str, Any]:
    """Every case's matches, as the golden file holds them."""
    return {json.dumps(r, sort_keys=True): play_matches(r, n) for r, n in CASES}


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(generate(), separators=(",", ":")) + "\n")
    print(f"wrote {GOLDEN}", file=sys.stderr)
