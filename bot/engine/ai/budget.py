"""How hard a search thinks and when it may stop: the :class:`Budget` of a search level, what a search
saw (:class:`Evaluation`), and the early stop once one choice is clearly ahead (:func:`clear_lead`).

Shared by the card search (:mod:`bot.engine.ai.search`) and the searches before the first lead
(:mod:`bot.engine.ai.preplay`, :mod:`bot.engine.ai.bragsearch`, :mod:`bot.engine.ai.discardsearch`),
which the card search calls: they take their budget from here, not from it. A budget's clock,
``time.perf_counter`` unless told otherwise, is the one impure thing a bot player reads.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

#: How often (in worlds) a search with ``Budget.confident`` checks whether its choice is already clear.
CHECK_EVERY = 8


@dataclass(frozen=True, slots=True)
class Budget:
    """How hard a search level thinks."""

    #: Seconds per decision (the search stops at the first world boundary after it).
    seconds: float
    min_worlds: int
    max_worlds: int
    #: Play-outs per card per world when the solver is not used.
    rollouts: int
    #: Solve exactly once at most this many cards are left in hands and stock (0: never).
    solve_at: int
    #: Finish the current trick with the rule player's trick policy (:mod:`bot.engine.ai.trick`, the
    #: opponents careless in every second world) before the random play-out: a random finish would
    #: let a lead or a second-hand card look safe because nobody sensibly beats it.
    policy_trick: bool = False
    #: A hard cap in seconds from the start of the decision, the rule player's card included: checked
    #: after every card weighed and every 1,024 solver nodes, the world in progress is dropped (0: no
    #: cap; ``seconds`` still applies).
    limit: float = 0.0
    #: Play out with the rule player's trick policy (:func:`~bot.engine.ai.trick.policy_rollout`, the
    #: opponents careless in every second world) instead of uniformly random cards.
    policy_rollouts: bool = False
    #: Weigh each world by how likely it makes the plays seen (:mod:`bot.engine.ai.weigh`): the factor
    #: for a follow and for a lead the trick policy would not have made (``None``: every world counts
    #: the same).
    weigh: tuple[float, float] | None = None
    #: With ``weigh``, weigh the worlds by the brag's lays too (:func:`~bot.engine.ai.weigh.
    #: brag_likelihood`, the follow's factor for a lay the rule would not have made).
    weigh_brag: bool = True
    #: Stop before the budget once the leading card beats every other by this many standard errors of
    #: the paired per-world differences (checked every ``CHECK_EVERY`` worlds from ``check_from`` on;
    #: 0: never): a clear decision needs no more worlds, a close one gets the whole budget.
    confident: float = 0.0
    #: Worlds seen before the first such check: fewer give too rough a standard error.
    check_from: int = 24
    #: ``solve_at`` for the presets named here instead of the default, e.g. ``(("flip", 12),)``.
    solve_at_preset: tuple[tuple[str, int], ...] = ()
    #: Penalty points per deal by which the rule player's card is preferred (see
    #: :meth:`bot.engine.ai.search.SearchPlayer.search`).
    prior_bonus: float = 0.3
    #: The decisions before the first lead searched like a card (:mod:`bot.engine.ai.preplay`:
    #: ``"exchange"``, classic's exchange and gift; ``"swap"``, flip's swap and the card returned;
    #: ``"declare"``, flip's declared trump; :mod:`bot.engine.ai.bragsearch`: ``"brag"``, the
    #: bragger's cards in classic's brag; ``"lay"``, the others' face-up cards; ``"cut"``, the
    #: mirror's cut; ``"brag_kind"``, the kind under ``brag_choice``;
    #: :mod:`bot.engine.ai.discardsearch`: ``"discard"``, ``sochi``'s discard); the others follow
    #: the rule player's rules. The others' lays and the kind are not searched by default: against
    #: the rule each lost 0.14-0.15 penalty points per deal, CI below zero (experiments/README.md).
    preplay: tuple[str, ...] = ("exchange", "swap", "declare", "brag", "cut", "discard")
    #: The clock ``seconds`` and ``limit`` are read on: wall time for the bot (a move must come in
    #: time), or this thread's CPU time (``time.thread_time``: the arena's ``--clock cpu``), so a
    #: level gets as much CPU on a loaded machine as on a quiet one and a measurement depends far
    #: less on what else the machine runs.
    clock: Callable[[], float] = time.perf_counter

    def solve_from(self, preset: str) -> int:
        """How many cards left the exact solver starts from under ``preset`` (0: never)."""
        for name, n in self.solve_at_preset:
            if name == preset:
                return n
        return self.solve_at


@dataclass(slots=True)
class Evaluation:
    """What a search saw: each card's worth (penalty points, from the deciding pair's side: higher is
    better) in each world, and each world's weight."""

    #: The legal cards (bits), lowest id first.
    moves: list[int]
    values: dict[int, list[float]]
    weights: list[float]

    @property
    def worlds(self) -> int:
        """How many worlds were seen."""
        return len(self.weights)

    def mean(self, m: int) -> float:
        """Card ``m``'s weighted mean worth."""
        return sum(x * v for x, v in zip(self.weights, self.values[m], strict=True)) / sum(self.weights)

    def gap(self, a: int, c: int) -> tuple[float, float]:
        """How much more card ``a`` is worth than card ``c``: the weighted mean of the per-world
        differences, and its standard error."""
        mass = sum(self.weights)
        n_eff = mass * mass / sum(x * x for x in self.weights)
        d = [p - q for p, q in zip(self.values[a], self.values[c], strict=True)]
        mean = sum(x * y for x, y in zip(self.weights, d, strict=True)) / mass
        var = sum(x * (y - mean) ** 2 for x, y in zip(self.weights, d, strict=True)) / mass
        return mean, math.sqrt(var / n_eff)


def clear_lead(seen: dict[int, list[float]], weights: list[float], z: float) -> bool:
    """Whether the card with the best weighted mean in ``seen`` (per card, its worth in each world) leads
    every other by more than ``z`` standard errors of the weighted per-world differences."""
    if sum(weights) <= 0.0:
        return False
    ev = Evaluation(list(seen), seen, weights)
    best = max(seen, key=ev.mean)
    for m in seen:
        if m == best:
            continue
        mean, error = ev.gap(best, m)
        if mean - z * error <= 0.0 and not (error == 0.0 and mean == 0.0):
            return False
    return True
