"""A short arena run checks the machinery (not strength): duplicate pairs, the summary, the CLI."""

from __future__ import annotations

import json

import pytest

from bot.engine import Rules
from bot.engine.ai.base import make_player
from bot.engine.arena import main, run


def test_duplicate_run_summarises_paired_deals() -> None:
    s = run(Rules.make("draw"), (["easy"], ["random"]), deals=6, seed=3)
    assert s["paired_deals"] == 6
    lo, hi = s["ci95"]
    assert lo <= s["margin_per_deal"] <= hi
    assert 0 <= s["deals_won_share"] <= 1
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
