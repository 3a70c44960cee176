"""Decision times at one phase before the first lead: ``python -m experiments.arena.phase_times PRESET
PHASE LEVEL [DEALS]``.

Deals ``DEALS`` fresh deals of ``PRESET`` (deal numbers 1–7, so the brag kinds of a rotation come up),
takes every decision before ``PHASE`` by ``easy``, and times ``LEVEL``'s decision at ``PHASE`` on this
thread's CPU clock (the level's budget read on it too, as the arena's ``--clock cpu``). Prints the
count, median, p95 and max in ms, e.g. ``python -m experiments.arena.phase_times sochi discard hard``.
"""

import random
import sys
import time

from bot.engine import Deal, Rules, view_for
from bot.engine.ai import make_player
from bot.engine.deal import Phase
from bot.measure.arena import on_clock


def main(argv: list[str]) -> int:
    preset, phase, level = argv[0], Phase(argv[1]), argv[2]
    deals = int(argv[3]) if len(argv) > 3 else 40
    rules = Rules.make(preset)
    player = on_clock(make_player(level), time.thread_time)
    rule = make_player("easy")
    times = []
    for seed in range(deals):
        deal = Deal.shuffled(rules, random.Random(seed), seed % rules.seats, deal_no=1 + seed % 7)
        while not deal.over and deal.phase is not phase and deal.phase is not Phase.PLAY:
            seat = deal.to_act
            assert seat is not None
            deal.apply(seat, rule.decide(view_for(deal, seat), random.Random(seed)))
        if deal.phase is not phase or deal.to_act is None:
            continue
        view = view_for(deal, deal.to_act)
        t0 = time.thread_time()
        player.decide(view, random.Random(1))
        times.append(time.thread_time() - t0)
    if not times:
        print(f"no {phase.value} decision in {deals} deals")
        return 1
    times.sort()
    ms = [1000 * t for t in times]
    print(
        f"{level} at {phase.value}: {len(ms)} decisions, median {ms[len(ms) // 2]:.1f} ms, "
        f"p95 {ms[min(len(ms) - 1, int(0.95 * len(ms)))]:.1f} ms, max {ms[-1]:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
