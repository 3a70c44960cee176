"""``python -m experiments.learned.duel [PRESET ...] [--deals N]``: the learned policy's likeliest card
against the rule player's trick policy, as players, with every hand of the deal open.

Each deal (seeded, decisions before the first lead taken as offered) is played twice from the same
cards: once with pair A playing the policy's likeliest card (from its own view: hand, trick, cards gone)
and pair B the rule player's trick policy (:func:`~bot.engine.ai.trick.lead`,
:func:`~bot.engine.ai.trick.finish`, which read every hand), once with the pairs' ways swapped. Prints
the policy's mean margin in penalty points per deal with a 95% CI. This is the question "which plays
better", not "which judges the search's cards better" (see docs/bots.md, the learned level).
"""

from __future__ import annotations

import argparse
import random
import statistics

from bot.engine import Deal, Rules
from bot.engine.ai.features import card_features
from bot.engine.ai.learned import gone_in
from bot.engine.ai.model import packaged_policy
from bot.engine.ai.sample import true_world
from bot.engine.ai.trick import finish, lead
from bot.engine.ai.world import World
from bot.engine.deal import Phase


def _rule_card(w: World) -> int:
    s = w.s
    if not w.trick:
        return lead(s, w.hands, w.seat, w.mask, w.stacks)
    out: list[int] = []
    finish(s, w.hands, w.trick, s.orders[w.leader][len(w.trick) :], None, out, w.stacks)
    return out[0]


def _play(w: World, policy_pair: int, weights: tuple[float, ...]) -> int:
    """``w`` played out (on a copy), pair ``policy_pair`` by the policy; the deal's worth to pair A."""
    w = w.copy()
    s = w.s
    gone = gone_in(w)
    while not w.over:
        m = w.mask
        if m & (m - 1) == 0:
            b = m
        elif s.pair_of[w.seat] == policy_pair:
            rows = card_features(s, w.seat, w.hands[w.seat], m, w.trick, gone)
            b = max(rows, key=lambda r: sum(a * x for a, x in zip(weights, r[1], strict=True)))[0]
        else:
            b = _rule_card(w)
        gone |= b
        w.play(b)
    return w.value0()


def duel(preset: str, deals: int, seed: int = 10_000) -> tuple[float, float, int]:
    """The policy's mean margin per deal over ``deals`` deals, its standard error and the deals played."""
    weights = packaged_policy().family(preset)
    rules = Rules.make(preset)
    diffs: list[float] = []
    for i in range(deals):
        deal = Deal.shuffled(rules, random.Random(seed + i), dealer=i % rules.seats)
        while deal.phase is not Phase.PLAY:
            seat = deal.to_act
            acts = deal.legal_actions(seat) if seat is not None else []
            if seat is None or not acts:
                break
            deal.apply(seat, acts[0])
        if deal.phase is not Phase.PLAY:
            continue  # redealt or over before the first lead
        w = true_world(deal)
        diffs.append((_play(w, 0, weights) - _play(w, 1, weights)) / 2)
    return statistics.mean(diffs), statistics.stdev(diffs) / len(diffs) ** 0.5, len(diffs)


def main(argv: list[str] | None = None) -> int:
    """Print each preset's figure."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("presets", nargs="*", default=["classic", "flip", "draw"])
    ap.add_argument("--deals", type=int, default=1500)
    args = ap.parse_args(argv)
    for preset in args.presets:
        m, se, n = duel(preset, args.deals)
        lo, hi = m - 1.96 * se, m + 1.96 * se
        print(f"{preset}: policy − rule trick policy {m:+.3f} ({lo:+.3f}, {hi:+.3f}) per deal, {n} deals")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
