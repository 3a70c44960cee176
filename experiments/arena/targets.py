"""The README's table of #23's targets, from the arena runs' JSON.

``python -m experiments.arena.targets DIR`` reads ``DIR/A_B_PRESET_seedS.json`` — the
``python -m bot.measure.arena --a A --b B --preset PRESET --seed S --json`` summaries (``sochi``'s:
``python -m bot.measure.arena3``) — and prints, per preset and seed, each margin with its 95% CI,
the share of the gap to ``cheat`` that ``hard`` closes (:mod:`experiments.arena.gap`), the levels'
decision times (and ``easy``'s alone, from ``easy_easy_PRESET_seed2.json``), and whether each target
is met.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from experiments.arena.gap import gap

PRESETS = ("classic", "flip", "draw")
#: The seed of the ``easy`` − ``easy`` runs that time ``easy`` alone on each preset.
TIMING_SEED = 2
ALL_PRESETS = ("classic", "flip", "draw", "tricks", "sochi4", "dummy", "two_dummies", "sochi")


def load(root: Path, a: str, b: str, preset: str, seed: int) -> dict[str, Any] | None:
    """The run's summary, or ``None`` if it is not there (yet)."""
    path = root / f"{a}_{b}_{preset}_seed{seed}.json"
    if not path.exists() or not path.stat().st_size:
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def margin(run: dict[str, Any] | None) -> str:
    if run is None:
        return "—"
    lo, hi = run["ci95"]
    return f"{run['margin_per_deal']:+.3f} ({lo:.3f}, {hi:.3f})"


def met(run: dict[str, Any] | None, at_least: float) -> str:
    """A margin target: the mean at least ``at_least`` and the CI above zero."""
    if run is None:
        return "not run"
    ok = run["margin_per_deal"] >= at_least and run["ci95"][0] > 0
    return "met" if ok else "not met"


def table(root: Path, seeds: list[int]) -> str:
    rows = [
        "| preset | seed | hard − medium (≥ +0.2) | medium − easy (≥ +0.3) | hard − easy | cheat − easy "
        "| (hard − easy) / (cheat − easy) (≥ 0.5) |",
        "|---|---|---|---|---|---|---|",
    ]
    times: dict[str, list[dict[str, float]]] = {"hard": [], "medium": [], "easy": []}
    for preset in PRESETS:
        for seed in seeds:
            hm = load(root, "hard", "medium", preset, seed)
            me = load(root, "medium", "easy", preset, seed)
            he = load(root, "hard", "easy", preset, seed)
            ce = load(root, "cheat", "easy", preset, seed)
            share = "—"
            if he is not None and ce is not None:
                g = gap(he, ce)
                lo, hi = g["ratio_ci95"]
                verdict = "met" if g["ratio"] >= 0.5 else "not met" + (", CI below 0.5" if hi < 0.5 else "")
                share = f"{g['ratio']:.2f} ({lo:.2f}, {hi:.2f}), {verdict}"
            rows.append(
                f"| {preset} | {seed} | {margin(hm)}, {met(hm, 0.2)} | {margin(me)}, {met(me, 0.3)} "
                f"| {margin(he)} | {margin(ce)} | {share} |"
            )
            for run in (hm, he, me):  # each side's times, by the level it is
                for side in ("a", "b"):
                    if run is not None and run[side] in times and run.get(f"time_ms_{side}"):
                        times[run[side]].append(run[f"time_ms_{side}"])
    rows.append("")
    rows.append("| level | decisions | p95 (worst run) | max (worst run) | target |")
    rows.append("|---|---|---|---|---|")
    limits = {"hard": (500, 1000), "medium": (100, None), "easy": (5, None)}
    for level, ts in times.items():
        if not ts:
            continue
        p95 = max(t["p95"] for t in ts)
        mx = max(t["max"] for t in ts)
        lim_p95, lim_max = limits[level]
        ok = p95 <= lim_p95 and (lim_max is None or mx <= lim_max)
        want = f"p95 ≤ {lim_p95} ms" + (f", max ≤ {lim_max} ms" if lim_max else "")
        rows.append(
            f"| `{level}` | {sum(t['n'] for t in ts)} | {p95:.1f} ms | {mx:.1f} ms | {want}: "
            f"{'met' if ok else 'not met'} |"
        )
    alone = [(preset, load(root, "easy", "easy", preset, TIMING_SEED)) for preset in ALL_PRESETS]
    if any(run is not None for _, run in alone):
        rows.append("")
        rows.append(f"`easy` against itself, seed {TIMING_SEED} (both sides' decisions):")
        rows.append("")
        rows.append("| preset | decisions | median | p95 | max | p95 ≤ 5 ms |")
        rows.append("|---|---|---|---|---|---|")
        for preset, run in alone:
            if run is None:
                continue
            ts = [run["time_ms_a"], run["time_ms_b"]]
            p95 = max(t["p95"] for t in ts)
            rows.append(
                f"| {preset} | {sum(t['n'] for t in ts)} | {max(t['median'] for t in ts):.2f} ms "
                f"| {p95:.2f} ms | {max(t['max'] for t in ts):.1f} ms | {'met' if p95 <= 5 else 'not met'} |"
            )
    rows.append("")
    rows.append("| preset | seed | easy − greedy | easy − random |")
    rows.append("|---|---|---|---|")
    for preset in ALL_PRESETS:
        for seed in seeds:
            eg = load(root, "easy", "greedy", preset, seed)
            er = load(root, "easy", "random", preset, seed)
            cells = f"{margin(eg)}, {met(eg, 0.0)} | {margin(er)}, {met(er, 0.0)}"
            rows.append(f"| {preset} | {seed} | {cells} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0])
    seeds = [int(s) for s in args[1:]] or [41, 42]
    print(table(root, seeds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
