"""The thinking-capacity bench: fixed work per decision, through the thinkers the bot uses."""

from __future__ import annotations

import pytest

from bot.engine.actions import Play
from bot.engine.ai import pool
from bot.engine.ai.base import make_player
from bot.thinking import capacity


def test_steady_decisions_do_the_same_work_after_any_wait() -> None:
    # A fixed number of worlds and no clock: a decision taken at once and one that waited long
    # enough to keep 5% of a timed budget are the same decision for the same seed.
    for view in capacity.views(4, "classic", seed=5):
        fresh = pool.decide(capacity.STEADY, view, 11, 1.0)
        hastened = pool.decide(capacity.STEADY, view, 11, pool.MIN_HASTE)
        assert fresh == hastened
        assert fresh in view.legal


def test_steady_is_hards_search_with_worlds_for_a_clock() -> None:
    player = make_player(capacity.STEADY)
    budget = player.budget  # type: ignore[attr-defined]
    assert budget.min_worlds == budget.max_worlds == capacity.WORLDS
    assert budget.limit == 0.0 and budget.confident == 0.0 and budget.solve_at == 0
    assert pool.scaled(budget, 0.1).seconds == budget.seconds  # no time for haste to take


def test_the_views_are_card_decisions_with_a_choice() -> None:
    got = capacity.views(12, "flip", seed=2)
    assert len(got) == 12
    for view in got:
        assert view.to_act == view.seat and len(view.legal) > 1
        assert all(isinstance(a, Play) for a in view.legal)
    assert capacity.views(12, "flip", seed=2) == got  # seeded


# The pool of this instance's processes (``--thinking redis`` is the same measure through the stream,
# whose workers tests/thinking/test_thinking.py runs, kills and replaces).
@pytest.mark.parametrize("kind", ["processes"])
async def test_measure_times_each_worker_count_alternately(kind: str, plain_redis_url: str) -> None:
    url = plain_redis_url
    figures = await capacity.measure(kind, [1, 2], rounds=2, size=4, preset="classic", seed=1, url=url)
    assert len(figures["rounds_1_workers"]) == len(figures["rounds_2_workers"]) == 2
    assert all(rate > 0 for rate in figures["rounds_1_workers"] + figures["rounds_2_workers"])
    assert figures["ratio_2_to_1"] == pytest.approx(
        figures["decisions_per_s_2_workers"] / figures["decisions_per_s_1_workers"], abs=0.01
    )
    # The machine's ceiling, timed in the same pool, where the pool is this instance's processes.
    assert ("spin_ratio_2_to_1" in figures) == (kind == "processes")


def test_spin_is_plain_arithmetic() -> None:
    assert capacity.spin(10) == sum(i * i % 7 for i in range(10))
