"""The bot bench (bot/measure/bench/) drives the real lobby by its catalog labels and counts calls right."""

from __future__ import annotations

import cProfile
import gc
import json
import random
import time
from pathlib import Path

import pytest

from bot.engine import Rules
from bot.measure.bench import figures, players
from bot.runtime import GC_THRESHOLDS, tune_gc
from bot.sandbox import Driver
from bot.tg.services import Services


@pytest.mark.parametrize("preset", ["draw", "default"])
async def test_the_bench_sets_up_a_table_through_the_lobby(
    app: object, driver: Driver, svc: Services, preset: str
) -> None:
    # No deal to play: the bench's own lobby steps (rules, seats, start) must find every button.
    await players.inline_table(driver, svc.codec, 7, preset, 0, random.Random(1))
    group = next(c for c in driver.world.chats.values() if c.is_group)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "playing"
    assert [s is not None and s.name == f"P7-{i}" for i, s in enumerate(table.seats)] == [True] * 4
    if preset != "default":
        assert table.rules["preset"] == preset
    # The bench finds the player to act by the prompt mark of the catalog.
    users = [driver.user(s.user_id) for s in table.seats if s is not None and s.user_id is not None]
    await driver.wait_for(lambda: players.legal(svc.codec, users) or None, what="a legal move")


async def test_the_bench_seats_bot_players_of_the_level_asked(
    app: object, driver: Driver, svc: Services
) -> None:
    await players.inline_table(
        driver, svc.codec, 3, "classic", 0, random.Random(1), players.Seating(3, "easy"), svc.storage
    )
    group = next(c for c in driver.world.chats.values() if c.is_group)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "playing"
    assert [(s.is_bot, s.level if s.is_bot else None) for s in table.seats if s is not None] == [
        (False, None),
        (True, "easy"),
        (True, "easy"),
        (True, "easy"),
    ]


def test_bot_decisions_are_summed_up_only_when_there_were_any() -> None:
    assert figures.thinking_figures({"bot_waits": []}, 10.0) == {}
    got = figures.thinking_figures({"bot_waits": [0.1, 0.2, 0.3, 4.0], "thinking_cpu_s": 1.5}, 2.0)
    assert got == {
        "bot_decisions": 4,
        "bot_decisions_per_s": 2.0,
        "bot_wait_ms_median": 200.0,
        "bot_wait_ms_p95": 300.0,
        "bot_wait_ms_max": 4000.0,
        "thinking_cpu_s": 1.5,
        "thinking_cores": 0.75,
        "thinking_cpu_ms_per_decision": 375.0,
    }


def test_the_marks_come_from_the_catalog() -> None:
    assert players.PROMPT == "👉" and players.SUMMARY == "🏁"


def test_the_busiest_minute_of_a_group() -> None:
    assert figures.max_per_minute([]) == 0
    assert figures.max_per_minute([0.0, 3.0, 59.9, 60.0, 63.0]) == 3
    assert figures.max_per_minute([float(t) for t in range(0, 300, 3)]) == 20
    assert figures.ms([0.001, 0.002, 0.003, 0.1], 0.5) == 2.0 and figures.ms([], 0.95) is None


def test_cpu_shares_tell_the_bots_own_code_from_the_libraries(tmp_path: Path) -> None:
    def work() -> None:
        for _ in range(200):
            json.dumps({"rules": Rules.make("flip").to_json()})  # the bot's code and a library's

    profiler = cProfile.Profile(time.process_time)
    profiler.runcall(work)
    path = tmp_path / "profile"
    profiler.dump_stats(path)
    shares = figures.cpu_shares(str(path), least=0.0)
    assert shares["bot"] > 0 and shares["stdlib_json"] > 0
    assert sum(shares.values()) <= 1 + 0.0005 * len(shares) + 1e-9  # each share rounded to 0.001
    assert figures.package("~") == "~"
    assert figures.package(figures.__file__) == figures.package(players.__file__) == "bot"


def test_the_bot_process_freezes_what_it_made_at_start_and_collects_less_often() -> None:
    before = gc.get_threshold()
    try:
        tune_gc()
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
