"""One path of the engine bench on fixed seeds, for instruction counts under callgrind.

``python experiments/engine/callgrind.py MODE CASE N``, MODE one of ``api`` (``N`` random deals
through the ``Deal`` API, as ``bot.measure.engine_bench.api_deals``), ``ref`` (the same through the list-based
reference, ``tests/engine/reference.py``), ``search`` (``N`` kernel play-outs from the first lead, as
the bot players' ``rollout``) or ``refplay`` (the reference playing out the same positions). Run each
under callgrind at N and at 0 and subtract, then divide the reference's count by the engine's::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.api.600 \\
        .venv/bin/python experiments/engine/callgrind.py api draw 600
    grep -E '^(summary|totals):' /tmp/cg.api.600

(api_vs_reference = (ref600 − ref0) / (api600 − api0); search_vs_reference likewise from refplay and
search.) ``PYTHONHASHSEED=0`` makes runs repeat to about 60k instructions.
"""

import os
import random
import sys

sys.path.insert(0, os.getcwd())  # the checkout it is run from

from bot.engine.ai.sample import true_world
from bot.engine.ai.world import rollout
from bot.engine.rules import Rules
from bot.measure.engine_bench import CASES, _ref_position, _reference, api_deals, first_leads

POSITIONS = 600  # made outside the measured work, always all of them, so the N=0 run subtracts them


def main() -> None:
    mode, case, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    preset, deal_no = CASES[case]
    rules = Rules.make(preset)
    ref = _reference()
    if ref is None:
        sys.exit("the reference engine is not importable here")
    seed = 1
    if mode == "api":
        api_deals(rules, random.Random(seed), n, deal_no)
    elif mode == "ref":
        rng = random.Random(seed)
        done = 0
        while done < n:
            d = ref.deal_random(preset, rng, done % 4)
            if d is not None:
                ref.play_random(d, rng.random)
                done += 1
    elif mode in ("search", "refplay"):
        positions = first_leads(rules, random.Random(seed + 1), POSITIONS, deal_no)
        rng = random.Random(seed + 2)
        if mode == "search":
            for w in [true_world(d) for d in positions][:n]:
                rollout(w, rng)
        else:
            for x in [_ref_position(ref, d) for d in positions][:n]:
                x.play_random(rng.random)
    else:
        raise SystemExit(f"unknown mode {mode!r}: api, ref, search or refplay")


if __name__ == "__main__":
    main()
