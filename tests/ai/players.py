"""Search players with tiny, deterministic budgets (a fixed number of worlds), for fast tests."""

from __future__ import annotations

import dataclasses
from typing import Any

from bot.engine.ai.learned import DEFUSED, LEARNED, LearnedPlayer
from bot.engine.ai.search import CHEAT, HARD, MEDIUM, Budget, CheatPlayer, SearchPlayer


def fixed(budget: Budget, worlds: int, **changes: Any) -> Budget:
    """``budget`` on exactly ``worlds`` worlds, with no clock: the search is deterministic for a given rng."""
    return dataclasses.replace(
        budget, seconds=1e9, min_worlds=worlds, max_worlds=worlds, limit=0.0, confident=0.0, **changes
    )


def tiny_medium() -> SearchPlayer:
    """``medium``'s algorithm on three worlds, solving the last ten cards."""
    return SearchPlayer("tiny-medium", fixed(MEDIUM, 3, solve_at=10))


def tiny_hard() -> SearchPlayer:
    """``hard``'s algorithm on three weighted worlds, solving the last three tricks."""
    return SearchPlayer("tiny-hard", fixed(HARD, 3, solve_at=12))


def tiny_cheat() -> CheatPlayer:
    """The cheating ceiling with one pass over the true world."""
    return CheatPlayer("tiny-cheat", fixed(CHEAT, 1, solve_at=8))


def small_medium() -> SearchPlayer:
    """``medium``'s algorithm on a fixed 60 worlds: deterministic, and enough to see past rollout noise."""
    return SearchPlayer("small-medium", fixed(MEDIUM, 60))


def small_hard() -> SearchPlayer:
    """``hard``'s algorithm on a fixed 60 weighted worlds."""
    return SearchPlayer("small-hard", fixed(HARD, 60))


def tiny_learned() -> LearnedPlayer:
    """The ``learned`` level on three worlds (learned weights, the end game defused), solving the last
    three tricks."""
    return LearnedPlayer("tiny-learned", fixed(LEARNED, 3, solve_at=12), DEFUSED)


def small_learned() -> LearnedPlayer:
    """The ``learned`` level on a fixed 60 worlds."""
    return LearnedPlayer("small-learned", fixed(LEARNED, 60), DEFUSED)
