"""How much of the gap to a ceiling a level closes, deal by deal.

``python -m experiments.arena.gap LEVEL.json CEILING.json [--boot N] [--seed S]`` reads two arena
summaries (``python -m bot.measure.arena ... --json``) of the same preset and seed against the same
side B — say ``--a hard --b easy`` and ``--a cheat --b easy`` — and prints the ratio of their margins,
(LEVEL − B) / (CEILING − B), over the deals both runs played (the same match and deal index is the same
deck in both), with a 95% percentile-bootstrap CI resampled over those deals. Deals are paired, so the
deals that are easy or hard for everybody move both margins together and the CI is the paired one.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from typing import Any


def per_deal(summary: dict[str, Any]) -> dict[tuple[int, int], float]:
    """A summary's paired deals: (match, deal) → side A's margin over the deal's two plays."""
    return {(m, k): (x + y) / 2 for m, k, x, y in summary["deals"]}


def gap(level: dict[str, Any], ceiling: dict[str, Any], boot: int = 4000, seed: int = 1) -> dict[str, Any]:
    """The ratio of ``level``'s margin to ``ceiling``'s over their common deals, with its bootstrap CI."""
    for key in ("preset", "seed", "b"):
        if level.get(key) != ceiling.get(key):
            raise ValueError(f"the runs differ in {key}: {level.get(key)!r} and {ceiling.get(key)!r}")
    lv, cv = per_deal(level), per_deal(ceiling)
    common = sorted(set(lv) & set(cv))
    if len(common) < 2:
        raise ValueError("the runs share fewer than two deals")
    xs = [lv[k] for k in common]
    ys = [cv[k] for k in common]
    rng = random.Random(seed)
    n = len(common)
    ratios = []
    for _ in range(boot):
        idx = [rng.randrange(n) for _ in range(n)]
        den = sum(ys[i] for i in idx)
        if den > 0:
            ratios.append(sum(xs[i] for i in idx) / den)
    ratios.sort()
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return {
        "preset": level["preset"],
        "seed": level["seed"],
        "b": level["b"],
        "level": level["a"],
        "ceiling": ceiling["a"],
        "common_deals": n,
        "level_margin": round(mx, 3),
        "ceiling_margin": round(my, 3),
        "ratio": round(mx / my, 3) if my else None,
        "ratio_ci95": [
            round(ratios[int(0.025 * len(ratios))], 3),
            round(ratios[int(0.975 * len(ratios)) - 1], 3),
        ]
        if ratios
        else None,
        "half_gap_shortfall": round(mx - 0.5 * my, 3),
    }


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    ap = argparse.ArgumentParser(prog="python -m experiments.arena.gap", description=__doc__.splitlines()[0])
    ap.add_argument("level")
    ap.add_argument("ceiling")
    ap.add_argument("--boot", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    with open(args.level, encoding="utf-8") as f:
        level = json.load(f)
    with open(args.ceiling, encoding="utf-8") as f:
        ceiling = json.load(f)
    print(json.dumps(gap(level, ceiling, args.boot, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
