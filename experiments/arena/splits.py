"""How the two plays of each duplicate deal ended for a level against ``random``.

``python -m experiments.arena.splits LEVEL PRESET PAIRS [SEED]`` plays the arena's matches (seed 1 by
default, the same deals as ``python -m bot.measure.arena``) and prints the share of paired deals by
outcome, side A's first play then its second: ``WW`` won both (it won with the weaker cards too),
``WL``/``LW`` split (the cards decided), ``LL`` lost both (it lost with the better cards too), ``T``
a tie (eggs). A level that wins a larger share of deals must turn splits into ``WW``."""

import collections
import sys

from bot.engine import Rules
from bot.measure.arena import play_duplicate


def _outcome(v: int) -> str:
    return "W" if v > 0 else "L" if v < 0 else "T"


def splits(level: str, preset: str, pairs: int, seed: int = 1) -> dict[str, float]:
    rules = Rules.make(preset)
    counts: collections.Counter[str] = collections.Counter()
    total = match = 0
    while total < pairs:
        for x, y in play_duplicate(rules, ([level], ["random"]), seed, match)["pairs"]:
            if total < pairs:
                counts[_outcome(x) + _outcome(y)] += 1
                total += 1
        match += 1
    return {k: round(v / total, 3) for k, v in sorted(counts.items())}


if __name__ == "__main__":
    level, preset, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    print(level, preset, n, splits(level, preset, n, int(sys.argv[4]) if len(sys.argv) > 4 else 1))
