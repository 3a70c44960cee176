"""``python -m experiments.learned.selfplay``: self-play records for the learned policy.

Plays deals of every preset (or those named) with each seat's level drawn at random from ``--levels``
(mixed seats: the rule player ``easy`` and the search ``medium`` on a fixed number of worlds, so that a
seed gives the same records on any machine, however loaded), and writes one JSON line per card
decision with more than one legal card:

``{"preset", "deal_no", "deck", "seat", "level", "hand", "legal", "trick", "gone", "cards", "x", "y",
"outcome"}`` — the seat's hand, its legal cards and the cards gone as card-id bit masks, the trick so
far as ``[seat, card bit]`` pairs, the legal cards (bits, lowest id first) with their features
(:data:`bot.engine.ai.features.NAMES`, from the seat's :class:`~bot.engine.view.SeatView` alone), the
index of the card chosen, and the deal's outcome for the seat: minus the penalty points charged to
its side (0 for a void deal).

Deck ``k`` of a preset is shuffled from ``(seed, preset, k)``, its deal number cycles 1-9 (deal 1
dealt a card at a time, the others with classic's brag) and its dealer over the seats; the seats'
levels and random streams come from the same numbers. Output is gzip'd when the file name ends in
``.gz``.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import random
import sys
import time
from typing import IO, Any

from bot.engine.actions import Play
from bot.engine.ai.base import Player, make_player
from bot.engine.ai.features import view_features
from bot.engine.ai.search import MEDIUM, SearchPlayer
from bot.engine.cards import mask_of
from bot.engine.deal import Deal, Phase
from bot.engine.rules import PRESETS, Rules
from bot.engine.view import view_for

#: The deterministic ``medium``: its search on at most 48 worlds, no clock (stops early when clear).
MEDIUM_FIXED = dataclasses.replace(MEDIUM, seconds=1e9, limit=0.0, max_worlds=48)


def _seed(*parts: int) -> int:
    h = 1469598103934665603
    for p in parts:
        h = ((h ^ (p & 0xFFFFFFFFFFFF)) * 1099511628211) % (1 << 64)
    return h


def player(level: str) -> Player:
    """The player for a level of the records (``medium`` is :data:`MEDIUM_FIXED`)."""
    if level == "medium":
        return SearchPlayer("medium", MEDIUM_FIXED)
    return make_player(level)


def play_deck(rules: Rules, preset_no: int, seed: int, k: int, levels: list[str]) -> list[dict[str, Any]]:
    """Deck ``k``'s deal played by seats of random levels; its card decisions as records."""
    pick = random.Random(_seed(seed, preset_no, k, 1))
    names = [levels[pick.randrange(len(levels))] for _ in range(rules.seats)]
    players = [player(n) for n in names]
    rngs = [random.Random(_seed(seed, preset_no, k, 2, s)) for s in range(rules.seats)]
    deal = Deal.shuffled(
        rules, random.Random(_seed(seed, preset_no, k, 7)), k % rules.seats, deal_no=1 + k % 9
    )
    out: list[dict[str, Any]] = []
    while not deal.over:
        seat = deal.to_act
        assert seat is not None
        view = view_for(deal, seat)
        action = players[seat].decide(view, rngs[seat])
        if view.phase is Phase.PLAY and len(view.legal) > 1 and isinstance(action, Play):
            _, rows = view_features(view)
            cards = [b for b, _ in rows]
            out.append({
                "preset": rules.preset,
                "deal_no": view.deal_no,
                "deck": k,
                "seat": seat,
                "level": names[seat],
                "hand": mask_of(list(view.hand)),
                "legal": sum(cards),
                "trick": [[s, c.bit] for s, c in view.trick],
                "gone": mask_of(list(view.played())),
                "cards": cards,
                "x": [[round(v, 4) for v in f] for _, f in rows],
                "y": cards.index(action.card.bit),
            })  # fmt: skip
        deal.apply(seat, action)
    result = deal.result
    assert result is not None
    for r in out:
        r["outcome"] = 0 if result.void else -result.charged(r["seat"])
    return out


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    ap = argparse.ArgumentParser(
        prog="python -m experiments.learned.selfplay", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--out", required=True, help="the records' file (.jsonl or .jsonl.gz)")
    ap.add_argument("--decks", type=int, default=100, help="decks per preset")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--presets", default=",".join(PRESETS), help="comma-separated presets (default: all)")
    ap.add_argument("--levels", default="easy,medium", help="the levels seats are drawn from")
    args = ap.parse_args(argv)
    levels = args.levels.split(",")
    opener = gzip.open if args.out.endswith(".gz") else open
    t0 = time.process_time()
    n = 0
    with opener(args.out, "wt", encoding="utf-8") as f:
        fh: IO[str] = f
        for name in args.presets.split(","):
            rules = Rules.make(name)
            preset_no = PRESETS.index(name)
            for k in range(args.decks):
                for r in play_deck(rules, preset_no, args.seed, k, levels):
                    fh.write(json.dumps(r, separators=(",", ":")) + "\n")
                    n += 1
            print(
                f"{name}: {n} records so far, {time.process_time() - t0:.0f} s CPU",
                file=sys.stderr,
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
