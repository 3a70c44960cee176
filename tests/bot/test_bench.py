"""The bot bench (bot/measure/bench/) drives the real lobby by its catalog labels and counts calls right."""

from __future__ import annotations

import asyncio
import cProfile
import gc
import json
import random
import time
from pathlib import Path

import pytest

from bot.engine import Rules
from bot.measure.bench import botside, figures, group, players
from bot.render.words import card_text
from bot.runtime import GC_THRESHOLDS, tune_gc
from bot.sandbox import ApiCall, Driver
from bot.table.game import replay, rules_of
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


def test_a_saturated_loops_lags_count_by_the_time_they_took() -> None:
    # 900 probes of an idle loop (9 s) and 40 of a loop saturated for 4.4 s: one probe in 24 was late,
    # which the lags taken probe by probe hide even at their p95.
    lags = [0.0001] * 900 + [0.1] * 40
    assert figures.ms(lags, 0.5) == figures.ms(lags, 0.95) == 0.1
    assert figures.ms_by_time(lags, 0.5) == 0.1
    assert figures.ms_by_time(lags, 0.95) == figures.ms_by_time(lags, 1.0) == 100.0
    assert figures.ms_by_time([], 0.5) is None


async def test_the_bots_loop_probe_notes_the_seconds_it_was_on_a_cpu() -> None:
    lags: list[float] = []
    shares: list[float] = []
    probe = asyncio.create_task(botside.watch_loop(lags, shares, every=0.002, window=0.1))
    try:
        await asyncio.sleep(0.25)  # idle
        spun = time.process_time()
        while time.process_time() - spun < 0.4:  # the loop busy, as under 100 tables tapping at once
            until = time.process_time() + 0.03
            while time.process_time() < until:
                pass
            await asyncio.sleep(0)
    finally:
        probe.cancel()
    assert min(shares) < 0.3 and max(shares) > 0.6
    assert max(lags) > 0.02  # a probe waited for a spin


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


async def test_the_group_table_is_followed_card_by_card(app: object, driver: Driver, svc: Services) -> None:
    # Every card the people tap is noted with its deal; the group's table message (no pacing here)
    # shows each at once, but the deal's last trick, which the deal's summary shows.
    # A deal of several tricks: with other shuffles a shmon catching the queen ends it in its first.
    svc.rng = random.Random(6)
    cards = players.CardTaps(svc.codec)
    seated = await players.inline_table(driver, svc.codec, 5, "flip", 1, random.Random(2), cards=cards)
    stored = await svc.storage.load_table(seated.group.id, None)
    assert stored is not None and stored.match is not None
    result = replay(stored.match.deals[0], rules_of(stored)).result
    assert result is not None and len(result.tricks) > 2, "the deal ended early: pick another shuffle"
    named = [[card_text(players.TR, c) for _, c in t.plays] for t in result.tricks]
    assert [(t.chat_id, t.deal, t.card) for t in cards.taps] == [
        (seated.group.id, 1, c) for t in named for c in t
    ]
    calls = driver.world.calls
    got = group.follow(calls, cards.taps, pace=0)
    assert [t.card for t, _ in got.every] == [c for t in named[:-1] for c in t] and got.never == 0
    assert [t.card for t, _ in got.ending] == [t[-1] for t in named[:-1]]
    assert all(0 <= s < 5 for _, s in got.every)
    figures = group.group_figures(calls, cards.taps)
    assert figures["group_table_cards_measured"] == len(got.every)
    assert figures["group_table_trick_ends_measured"] == len(named) - 1
    assert figures["trick_end_to_group_table_ms_max"] == round(1000 * max(s for _, s in got.ending), 1)
    assert figures["cards_a_minute_at_a_table_median"] > 0
    # Every trick's end comes after a call to the group (the table message at least): within an hour's
    # pace all of them, within none none.
    assert group.follow(calls, cards.taps, pace=3600).paced == len(got.ending)
    assert got.paced == group.follow(calls, cards.taps, pace=0).paced == 0

    # As the group sees a deal whose people are all on the live table: the table message edited only
    # at each trick's end. A card inside a trick is shown with its trick's end, by the same edit.
    def table_text(call: ApiCall) -> str:
        text = call.result.get("text", "") if call.ok and isinstance(call.result, dict) else ""
        return text if players.deal_number(text, [group.TABLE_TITLE]) is not None else ""

    def inside_a_trick(call: ApiCall) -> bool:
        lines = table_text(call).splitlines()
        return any(line.startswith(group.ON_TABLE) and line != group.ON_TABLE + "—" for line in lines)

    mid_trick = [c for c in calls if c.method == "editMessageText" and inside_a_trick(c)]
    assert mid_trick
    by_trick = group.follow([c for c in calls if c not in mid_trick], cards.taps)
    assert len(by_trick.every) == len(got.every) and by_trick.never == 0
    shown = {t.card: t.at + s for t, s in by_trick.every}
    for trick in named[:-1]:
        assert {shown[c] for c in trick} == {shown[trick[-1]]}
    # A deal whose table message was never edited shows no card played (the deal's end came first).
    unedited = group.follow(
        [c for c in calls if not (c.method == "editMessageText" and table_text(c))], cards.taps
    )
    assert unedited.every == [] and unedited.never == len(got.every)
