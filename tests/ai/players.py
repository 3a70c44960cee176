"""Search players with tiny, deterministic budgets (a fixed number of worlds), for fast tests."""

from __future__ import annotations

from bot.engine.ai.search import HARD, MEDIUM, Budget, CheatPlayer, SearchPlayer

#: A fixed world count and no time limit make the search deterministic for a given rng.
TINY = Budget(
    seconds=1e9, min_worlds=3, max_worlds=3, rollouts=1, solve_at=10, policy_rollouts=True, weigh=MEDIUM.weigh
)


def tiny_medium() -> SearchPlayer:
    """``medium``'s algorithm on three worlds."""
    return SearchPlayer("tiny-medium", TINY)


def tiny_hard() -> SearchPlayer:
    """``hard``'s algorithm on three weighted worlds, solving the last three tricks."""
    return SearchPlayer(
        "tiny-hard",
        Budget(
            seconds=1e9,
            min_worlds=3,
            max_worlds=3,
            rollouts=1,
            solve_at=12,
            policy_trick=True,
            policy_rollouts=True,
            weigh=HARD.weigh,
        ),
    )


def tiny_cheat() -> CheatPlayer:
    """The cheating ceiling with one pass over the true world."""
    return CheatPlayer("tiny-cheat", Budget(seconds=1e9, min_worlds=1, max_worlds=1, rollouts=1, solve_at=8))


def small_medium() -> SearchPlayer:
    """``medium``'s algorithm on a fixed 60 worlds: deterministic, and enough to see past rollout noise."""
    return SearchPlayer(
        "small-medium",
        Budget(
            seconds=1e9,
            min_worlds=60,
            max_worlds=60,
            rollouts=1,
            solve_at=12,
            policy_rollouts=True,
            weigh=MEDIUM.weigh,
        ),
    )


def small_hard() -> SearchPlayer:
    """``hard``'s algorithm on a fixed 60 weighted worlds."""
    return SearchPlayer(
        "small-hard",
        Budget(
            seconds=1e9,
            min_worlds=60,
            max_worlds=60,
            rollouts=1,
            solve_at=16,
            policy_trick=True,
            policy_rollouts=True,
            weigh=HARD.weigh,
        ),
    )
