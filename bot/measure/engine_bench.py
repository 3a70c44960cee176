"""``python -m bot.measure.engine_bench``: random legal deals per second for each preset, as JSON lines.

Two paths are timed, each as the product runs it:

* ``api_deals_per_s`` — whole random deals through the validating :class:`~bot.engine.deal.Deal` API
  (what every tap, every replay of a stored deal and every stored-state check runs): shuffled, dealt,
  every decision before the first lead and every card taken through :meth:`Deal.apply` /
  :meth:`Deal.play`, which check and record each move, then scored. A deal that turns out void is
  dealt again and not counted.
* ``deals_per_s`` — random play-outs through the play kernel exactly as the bot players call them
  (:func:`bot.engine.ai.world.rollout`: a copy of the position, the kernel's play-out, its worth), from
  the first lead of random deals dealt beforehand through the API (not timed).

Beside each, the yardstick: a straightforward list-based implementation written from RULES.md alone
(``tests/engine/reference.py``: cards in lists, legal cards by list comprehension), timed on the same
work in the same run — whole deals for ``reference_deals_per_s``, play-outs from the same positions for
``reference_play_per_s`` — alternating with the path it is compared with, so ``api_vs_reference`` and
``search_vs_reference`` (speed ratios, medians over the runs) hold however loaded the machine is. The
reference plays classic's first deal, flip turned up and draw; it is absent (``null``) for
``classic_brag`` (a later classic deal: the brag and often the exchange), and where the ``tests``
package is not at hand.

``classic`` is a match's first deal (dealt one at a time). Figures are medians of ``--runs`` runs, in
this process's CPU time. ``--solver LEFT`` times the search levels' open-hand solver instead
(:func:`measure_solver`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from bot.engine.ai.sample import true_world
from bot.engine.ai.solver import Solver
from bot.engine.ai.world import World, rollout
from bot.engine.cards import ALL_CARDS
from bot.engine.deal import Deal, Phase
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
    "tricks": ("tricks", 1),
}


def api_deals(rules: Rules, rng: random.Random, n: int, deal_no: int) -> int:
    """Play ``n`` whole random deals through the validating API; returns ``n``."""
    done = 0
    rnd = rng.random
    while done < n:
        deal = Deal.shuffled(rules, rng, dealer=done % 4, deal_no=deal_no)
        _to_play_phase(deal, rng)
        if deal.over:
            continue
        seat = deal.to_act
        while seat is not None:  # None once the deal is over
            m = deal.legal_mask(seat)
            j = int(rnd() * m.bit_count())
            while j:
                m &= m - 1
                j -= 1
            deal.play(seat, ALL_CARDS[(m & -m).bit_length() - 1])
            seat = deal.to_act
        done += 1
    return done


def first_leads(rules: Rules, rng: random.Random, n: int, deal_no: int) -> list[Deal]:
    """``n`` random deals at their first lead (void deals skipped)."""
    out: list[Deal] = []
    while len(out) < n:
        deal = Deal.shuffled(rules, rng, dealer=len(out) % 4, deal_no=deal_no)
        _to_play_phase(deal, rng)
        if not deal.over:
            out.append(deal)
    return out


def _reference() -> Any | None:
    """The list-based reference module, if the ``tests`` package is at hand."""
    try:
        return importlib.import_module("tests.engine.reference")
    except ImportError:
        return None


def _paired(
    a: Callable[[], int], b: Callable[[], int], runs: int
) -> tuple[float, float | None, float | None]:
    """Run ``a`` and ``b`` in turn ``runs`` times: ``a``'s median rate, ``b``'s, and the median of the
    runs' speed ratios a / b (the two halves of a run see the same load)."""
    rates_a, rates_b, ratios = [], [], []
    for _ in range(runs):
        t0 = time.process_time()
        n = a()
        ta = time.process_time() - t0
        rates_a.append(n / ta)
        t0 = time.process_time()
        n_b = b()
        tb = time.process_time() - t0
        if n_b:
            rates_b.append(n_b / tb)
            ratios.append(rates_a[-1] / rates_b[-1])
    med_b = statistics.median(rates_b) if rates_b else None
    return statistics.median(rates_a), med_b, statistics.median(ratios) if ratios else None


def measure_case(case: str, deals: int, runs: int, seed: int) -> dict[str, Any]:
    """The figures of one line of the bench (see the module docstring)."""
    preset, deal_no = CASES[case]
    rules = Rules.make(preset)
    ref = _reference() if deal_no == 1 else None
    rng_api, rng_ref = random.Random(seed), random.Random(seed)

    def api() -> int:
        return api_deals(rules, rng_api, deals, deal_no)

    def ref_deals() -> int:
        done = 0
        while ref is not None and done < deals:
            d = ref.deal_random(preset, rng_ref, done % 4)
            if d is not None:
                ref.play_random(d, rng_ref.random)
                done += 1
        return done

    api_rate, ref_rate, api_ratio = _paired(api, ref_deals, runs)
    positions = first_leads(rules, random.Random(seed + 1), min(deals, 1000), deal_no)
    worlds: list[World] = [true_world(d) for d in positions]
    refs = [_ref_position(ref, d) for d in positions] if ref is not None else []
    rng_k, rng_r = random.Random(seed + 2), random.Random(seed + 2)

    def kernel() -> int:
        for w in worlds:
            rollout(w, rng_k)
        return len(worlds)

    def ref_play() -> int:
        for x in refs:
            x.play_random(rng_r.random)
        return len(refs)

    kernel_rate, ref_play_rate, search_ratio = _paired(kernel, ref_play, runs)
    return {
        "preset": case,
        "deals_per_s": round(kernel_rate),
        "api_deals_per_s": round(api_rate),
        "reference_deals_per_s": None if ref_rate is None else round(ref_rate),
        "reference_play_per_s": None if ref_play_rate is None else round(ref_play_rate),
        "api_vs_reference": None if api_ratio is None else round(api_ratio, 2),
        "search_vs_reference": None if search_ratio is None else round(search_ratio, 2),
        "deals": deals,
        "runs": runs,
    }


def _ref_position(ref: Any, deal: Deal) -> Any:
    """``deal`` at its first lead as the reference's deal."""
    st = deal.play_state
    assert st is not None and deal.trump is not None
    return ref.RefDeal(
        deal.rules.preset,
        deal.rules.deck_size,
        deal.trump.value,
        [deal.hand(s) for s in range(4)],
        st.leader,
        deal.stock,
        must_trump=deal.rules.options.must_trump_when_void,
        restricted=st.restricted,
    )


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


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one JSON line per case."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.measure.engine_bench", description=__doc__.splitlines()[0]
    )
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
        print(json.dumps(measure_case(case, args.deals, args.runs, args.seed)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
