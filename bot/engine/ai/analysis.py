"""Analysis of a finished deal: the cards a seat played that were clearly worth less than another,
as the ``hard`` player judges them from what that seat could see when it played them.

For each card the seat chose among several (decisions before the first lead are not analysed),
the deal is rebuilt to that moment and the seat's view taken — nothing the seat could not see. The
``hard`` player's search then evaluates every legal card on :data:`WORLDS` worlds sampled consistent
with that view, each weighed by how likely it makes the plays seen (the same sampler, weights,
policy play-outs and exact solver from 20 cards as ``hard``'s own decisions), every card on the same
worlds and random numbers. A card is a mistake when another was worth at least :data:`THRESHOLD`
penalty points more on average and the difference is above :data:`Z` standard errors of the per-world
differences; the largest :data:`MOST` are kept. Worlds are counted, not timed, so an analysis
is the same every time for the same deal and seed.

Each mistake may carry one line of why, read from how the deal went (:func:`reason`): the ♣Q caught
in that trick, a partner's winning card overtaken, points fed to the opponents' trick, a trick the
better card would have taken, a trump spent on a trick the pair won anyway, fewer points given to
the pair's own trick than the better card carried.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Any

from bot.engine.actions import Play
from bot.engine.cards import ALL_CARDS, Card, card
from bot.engine.deal import Deal, Phase, Trick
from bot.engine.order import Tables
from bot.engine.record import replay_deal
from bot.engine.view import view_for

from .search import HARD, SearchPlayer

#: Worlds each decision is evaluated on.
WORLDS = 48
#: Penalty points per deal by which another card must be worth more for the one played to be a mistake.
THRESHOLD = 0.35
#: ... and by this many standard errors of the per-world differences.
Z = 2.0
#: Mistakes listed at most, the largest first.
MOST = 3
_QC = card("QC")
#: ``hard``'s search on a fixed number of worlds: no time budget, no early stop.
BUDGET = dataclasses.replace(
    HARD, seconds=float("inf"), limit=0.0, min_worlds=WORLDS, max_worlds=WORLDS, confident=0.0
)


@dataclass(frozen=True, slots=True)
class Mistake:
    """A card played where another was clearly worth more."""

    #: The move's index in the deal record, and the trick it was played to (1 = the first).
    move: int
    trick: int
    played: Card
    better: Card
    #: How many penalty points per deal the better card was worth more, and that figure's standard error.
    loss: float
    error: float
    #: Why, where the deal shows it (see :func:`reason`), else ``None``.
    reason: str | None


def analyse(
    record: dict[str, Any], seat: int, *, worlds: int = WORLDS, threshold: float = THRESHOLD,
    z: float = Z, most: int = MOST, seed: int = 0,
) -> list[Mistake]:  # fmt: skip
    """The clear mistakes among ``seat``'s cards in the finished deal ``record`` (RULES.md §7), largest
    first; raises :class:`~bot.engine.errors.RecordError` for a record that does not replay to its end."""
    final = replay_deal(record)
    budget = BUDGET if worlds == WORLDS else dataclasses.replace(BUDGET, min_worlds=worlds, max_worlds=worlds)
    player = SearchPlayer("analysis", budget)
    deal = Deal(
        final.rules, final.deck, final.dealer, final.deal_no, final.eggs_before, version=final.version
    )
    found: list[Mistake] = []
    for i, (who, action) in enumerate(final.moves):
        if who == seat and isinstance(action, Play) and deal.phase is Phase.PLAY:
            view = view_for(deal, seat)
            if len(view.legal) > 1:
                rng = random.Random(seed * 1_000_003 + i)
                prior, world, weight = player.worlds(view, rng)
                ev = player.evaluate(prior, world, rng, weight=weight)
                if ev.worlds:
                    played = action.card.bit
                    best = max(ev.moves, key=lambda m: (ev.mean(m), m == played))
                    loss, error = ev.gap(best, played)
                    if best != played and loss >= threshold and loss > z * error:
                        trick = len(deal.tricks)
                        better = ALL_CARDS[best.bit_length() - 1]
                        found.append(Mistake(i, trick + 1, action.card, better, loss, error, None))
        deal.apply(who, action)
    tables = final.tables
    mistakes = [dataclasses.replace(m, reason=reason(final, seat, m, tables)) for m in found]
    return sorted(mistakes, key=lambda m: -m.loss)[:most]


def reason(deal: Deal, seat: int, m: Mistake, tables: Tables | None) -> str | None:
    """One word of why ``m`` was a mistake, read from the finished ``deal``: ``queen_caught`` (the
    card was the ♣Q and it was caught in that trick), ``overtook_partner`` (it beat the partner's
    winning card, the better card would not have), ``fed_opponents`` (the opponents took the trick
    and the card carried more points than the better one), ``lost_trick`` (the opponents took the
    trick, which the better card would have won against the cards played), ``wasted_trump`` (a trump
    on a trick the pair won, where the better card was no trump), ``fewer_points_to_partner`` (the
    pair won the trick and the better card carried more points); else ``None``."""
    if tables is None or m.trick > len(deal.tricks):
        return None
    t: Trick = deal.tricks[m.trick - 1]
    pair = deal.pair_of[seat]
    if m.played == _QC and t.winner is None:
        return "queen_caught"
    plays = list(t.plays)
    at = next(k for k, (s, _) in enumerate(plays) if s == seat)
    led = tables.eff[plays[0][1].id]
    before = plays[:at]
    if before:
        top_seat, top = before[0]
        for s, c in before[1:]:
            if tables.beats(c, top, led):
                top_seat, top = s, c
        # The partner of this deal (sochi forms the sides per deal; none for its lone player).
        partner = next((s for s in range(deal.n) if s != seat and deal.pair_of[s] == pair), None)
        if top_seat == partner and tables.beats(m.played, top, led) and not tables.beats(m.better, top, led):
            return "overtook_partner"
    theirs = t.winner is not None and deal.pair_of[t.winner] != pair
    if theirs and m.played.points > m.better.points:
        return "fed_opponents"
    if theirs and all(tables.beats(m.better, c, led) for s, c in plays if s != seat):
        return "lost_trick"
    if not theirs and t.winner is not None and tables.is_trump(m.played) and not tables.is_trump(m.better):
        return "wasted_trump"
    if not theirs and t.winner is not None and m.better.points > m.played.points:
        return "fewer_points_to_partner"
    return None


__all__ = ["BUDGET", "MOST", "THRESHOLD", "WORLDS", "Mistake", "Z", "analyse", "reason"]
