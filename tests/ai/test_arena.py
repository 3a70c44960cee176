"""A short arena run checks the machinery (not strength): duplicate pairs, the summary, the CLI."""

from __future__ import annotations

import dataclasses
import json
import random
import time

import pytest

from bot.engine import Deal, Rules, view_for
from bot.engine.ai.base import make_player
from bot.engine.ai.search import SearchPlayer
from bot.measure.arena import CLOCKS, main, on_clock, run, share_ci


def test_duplicate_run_summarises_paired_deals() -> None:
    s = run(Rules.make("draw"), (["easy"], ["random"]), deals=6, seed=3)
    assert s["paired_deals"] == 6
    lo, hi = s["ci95"]
    assert lo <= s["margin_per_deal"] <= hi
    assert 0 <= s["deals_won_share"] <= 1
    lo, hi = s["deals_won_ci95"]
    assert lo <= s["deals_won_share"] <= hi
    assert s["time_ms_a"]["n"] > 0 and s["time_ms_b"]["n"] > 0


def test_a_run_is_reproducible_from_its_seed() -> None:
    s = run(Rules.make("flip"), (["random"], ["random"]), deals=4, seed=1)
    assert s["paired_deals"] == 4
    again = run(Rules.make("flip"), (["random"], ["random"]), deals=4, seed=1)
    assert {k: v for k, v in again.items() if not k.startswith("time")} == {
        k: v for k, v in s.items() if not k.startswith("time")
    }


def test_cli_mixes_levels_and_import_paths(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "--a",
            "easy,tests.ai.players:tiny_cheat",
            "--b",
            "bot.engine.ai.base:RandomPlayer",
            "--preset",
            "classic",
            "--deals",
            "3",
            "--seed",
            "2",
            "--json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["paired_deals"] == 3 and out["preset"] == "classic"


def test_progress_reports_the_summary_after_each_batch() -> None:
    seen: list[int] = []
    s = run(
        Rules.make("draw"),
        (["easy"], ["random"]),
        deals=4,
        seed=2,
        progress=lambda p: seen.append(p["paired_deals"]),
    )
    assert seen and seen[-1] == s["paired_deals"] == 4
    assert seen == sorted(seen)


@pytest.mark.parametrize("level", ["random", "easy", "medium", "hard"])
def test_only_the_ceiling_is_shown_the_whole_deal(level: str) -> None:
    # The arena hands the deal to any player with ``decide_open``: the levels that fill real seats must
    # play from their view alone, or their arena figures measure a cheat.
    assert not hasattr(make_player(level), "decide_open")
    assert hasattr(make_player("cheat"), "decide_open")


def test_share_ci_counts_a_deals_two_plays_as_one_sample() -> None:
    # 150 wins in 200 decided plays: each pair won once or twice (50 each), so the pairs' wins vary by
    # 0.5 around 1.5: standard error sqrt(0.25 * 100 / 99 / 100) / 2 = 0.0251.
    pairs = [(1, -1)] * 50 + [(2, 4)] * 50
    assert share_ci(pairs) == [0.701, 0.799]
    # Tied plays (eggs) are left out, as in the share itself; one-sided runs are certain.
    assert share_ci([*pairs, (0, 0), (0, 0)]) == [0.701, 0.799]
    assert share_ci([(2, 2)] * 10) == [1.0, 1.0]
    assert share_ci([(2, -2)] * 10) == [0.5, 0.5]
    assert share_ci([(1, 1)]) is None and share_ci([(0, 0), (0, 0)]) is None


def test_cpu_clock_puts_the_search_levels_budgets_on_cpu_time(capsys: pytest.CaptureFixture[str]) -> None:
    hard = on_clock(make_player("hard"), CLOCKS["cpu"])
    assert isinstance(hard, SearchPlayer) and hard.budget.clock is time.thread_time
    easy = make_player("easy")
    assert on_clock(easy, time.thread_time) is easy  # no budget: nothing to change
    code = main(["--a", "medium", "--b", "easy", "--deals", "2", "--seed", "4", "--clock", "cpu", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["clock"] == "cpu" and out["paired_deals"] == 2


def test_a_search_reads_its_budget_on_the_budgets_clock() -> None:
    ticks: list[float] = []

    def clock() -> float:  # stands still: the world count alone ends the search
        ticks.append(0.0)
        return 0.0

    player = make_player("medium")
    assert isinstance(player, SearchPlayer)
    player.budget = dataclasses.replace(player.budget, clock=clock, min_worlds=3, max_worlds=3)
    deal = Deal.shuffled(Rules.make("classic"), random.Random(5), dealer=0, deal_no=1)
    seat = deal.to_act
    assert seat is not None and len(deal.legal_actions(seat)) > 1
    assert player.decide(view_for(deal, seat), random.Random(1)) in deal.legal_actions(seat)
    assert ticks


def test_two_runs_of_one_seed_pair_up_deal_by_deal() -> None:
    """Each pair carries its match and deal index, so the ceiling's run and a level's meet on the same
    decks; the gap's ratio is then taken over the deals both played."""
    from experiments.arena.gap import gap

    rules = Rules.make("draw")
    level = {"a": "greedy", "b": "random", "preset": "draw", "seed": 3}
    ceiling = {"a": "easy", "b": "random", "preset": "draw", "seed": 3}
    level |= run(rules, (["greedy"], ["random"]), deals=8, seed=3)
    ceiling |= run(rules, (["easy"], ["random"]), deals=8, seed=3)
    assert len(level["deals"]) == 8
    assert round(sum(x + y for *_, x, y in level["deals"]) / 16, 3) == level["margin_per_deal"]
    again = run(rules, (["easy"], ["random"]), deals=8, seed=3)
    assert again["deals"] == ceiling["deals"]
    out = gap(level, ceiling, boot=200)
    shared = {tuple(d[:2]) for d in level["deals"]} & {tuple(d[:2]) for d in ceiling["deals"]}
    assert out["common_deals"] == len(shared) >= 2
    mine = {tuple(d[:2]): (d[2] + d[3]) / 2 for d in level["deals"]}
    assert out["level_margin"] == round(sum(mine[k] for k in shared) / len(shared), 3)
    with pytest.raises(ValueError, match="seed"):
        gap(level, {**ceiling, "seed": 4})
