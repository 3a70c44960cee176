"""``python -m bot.engine.bench``: random legal deals per second for each preset, as JSON lines.

Each deal is shuffled, dealt, its decisions before the first lead taken at random, then played out
with random legal cards and scored; a deal that turns out void is dealt again and not counted.
``classic`` is a match's first deal (dealt one at a time); ``classic_brag`` a later one, which opens
with the brag and often the exchange. ``deals_per_s`` goes through :func:`bot.engine.fast.rollout`,
the path bot players search with (it takes classic's brag and exchange on bit masks too; flip's
declare and swap go through :meth:`Deal.apply`); ``api_deals_per_s`` takes every decision and plays
every card through :meth:`Deal.apply` and :meth:`Deal.play`, which validate and record each move.
Figures are the median of ``--runs`` runs on one core, timed in this process's CPU time (the same as
wall time on an idle machine; on a shared one it is skewed less by other processes).
``--solver LEFT`` times the search levels' open-hand solver instead (:func:`measure_solver`).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable

from bot.engine.ai.sample import true_world
from bot.engine.ai.solver import Solver
from bot.engine.ai.world import World
from bot.engine.cards import ALL_CARDS
from bot.engine.deal import Deal, Phase
from bot.engine.fast import REDEAL, rollout
from bot.engine.rules import Rules


def _to_play_phase(deal: Deal, rng: random.Random) -> None:
    while deal.phase is not Phase.PLAY and not deal.over:
        seat = deal.to_act
        assert seat is not None
        acts = deal.legal_actions(seat)
        deal.apply(seat, acts[int(rng.random() * len(acts))])


#: What each line measures: the rules, and the deal number in the match (classic's later deals
#: open with the brag).
CASES: dict[str, tuple[str, int]] = {
    "classic": ("classic", 1),
    "classic_brag": ("classic", 2),
    "flip": ("flip", 1),
    "draw": ("draw", 1),
}


def _search_path(rules: Rules, rng: random.Random, n: int, deal_no: int) -> int:
    done = 0
    while done < n:
        deal = Deal.shuffled(rules, rng, dealer=done % 4, deal_no=deal_no)
        if deal.brag is None:
            _to_play_phase(deal, rng)  # flip's decisions; the play-out takes classic's brag itself
        if not deal.over and rollout(deal, rng) is not REDEAL:
            done += 1
    return done


def _api_path(rules: Rules, rng: random.Random, n: int, deal_no: int) -> int:
    done = 0
    rnd = rng.random
    while done < n:
        deal = Deal.shuffled(rules, rng, dealer=done % 4, deal_no=deal_no)
        _to_play_phase(deal, rng)
        if deal.over:
            continue
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            m = deal.legal_mask(seat)
            j = int(rnd() * m.bit_count())
            while j:
                m &= m - 1
                j -= 1
            deal.play(seat, ALL_CARDS[(m & -m).bit_length() - 1])
        done += 1
    return done


def solver_positions(rules: Rules, rng: random.Random, left: int, n: int) -> list[World]:
    """``n`` true worlds of random deals (later deals too) at the first turn with at most ``left`` cards
    in hands and stock: every one a trick boundary or a turn within a trick, as in a search."""
    out: list[World] = []
    i = 0
    while len(out) < n:
        deal = Deal.shuffled(rules, rng, dealer=i % 4, deal_no=1 + i % 3)
        i += 1
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            if deal.phase is Phase.PLAY and sum(h.bit_count() for h in deal.hands) + len(deal.stock) <= left:
                out.append(true_world(deal))
                break
            acts = deal.legal_actions(seat)
            deal.apply(seat, acts[int(rng.random() * len(acts))])
    return out


def measure_solver(rules: Rules, left: int, positions: int, seed: int) -> dict[str, float]:
    """CPU milliseconds to solve every legal card of each position (a fresh solver each, as a decision
    has), median and p95, and the solver's nodes per second over them all."""
    rng = random.Random(seed)
    # Each count from left - 3 to left: every turn of a trick, not only the leader's.
    worlds = [w for k in range(4) for w in solver_positions(rules, rng, left - k, (positions + k) // 4)]
    times = []
    nodes = 0
    for w in worlds:
        solver = Solver()
        t0 = time.process_time()
        solver.move_values(w)
        times.append(time.process_time() - t0)
        nodes += solver.nodes
    times.sort()
    return {
        "median_ms": round(1000 * statistics.median(times), 2),
        "p95_ms": round(1000 * times[int(0.95 * (len(times) - 1))], 2),
        "max_ms": round(1000 * times[-1], 2),
        "nodes_per_s": round(nodes / sum(times)),
        "positions": len(worlds),
    }


def measure(
    rules: Rules,
    path: Callable[[Rules, random.Random, int, int], int],
    deal_no: int,
    deals: int,
    runs: int,
    seed: int,
) -> float:
    """Median deals per second of ``path`` over ``runs`` runs of ``deals`` deals numbered ``deal_no``."""
    rates = []
    for r in range(runs):
        rng = random.Random(seed + r)
        t0 = time.process_time()
        done = path(rules, rng, deals, deal_no)
        rates.append(done / (time.process_time() - t0))
    return statistics.median(rates)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one JSON line per case."""
    parser = argparse.ArgumentParser(prog="python -m bot.engine.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=list(CASES), action="append", help="repeatable; default: all")
    parser.add_argument("--deals", type=int, default=3000, help="deals per run (default 3000)")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--solver",
        type=int,
        metavar="LEFT",
        help="instead: time the open-hand solver on positions with LEFT-3 to LEFT cards left",
    )
    parser.add_argument(
        "--positions", type=int, default=200, help="solver positions per preset (default 200)"
    )
    args = parser.parse_args(argv)
    if args.solver:
        for preset in dict.fromkeys(CASES[c][0] for c in args.preset or CASES):
            figures = measure_solver(Rules.make(preset), args.solver, args.positions, args.seed)
            print(json.dumps({"preset": preset, "solver_left": args.solver, **figures}), flush=True)
        return 0
    for case in args.preset or CASES:
        preset, deal_no = CASES[case]
        rules = Rules.make(preset)
        fast = measure(rules, _search_path, deal_no, args.deals, args.runs, args.seed)
        api = measure(rules, _api_path, deal_no, args.deals, args.runs, args.seed)
        line = {
            "preset": case,
            "deals_per_s": round(fast),
            "api_deals_per_s": round(api),
            "deals": args.deals,
            "runs": args.runs,
        }
        print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
