"""Achievements through the emulator: announced once in the group after the result, listed in /stats."""

from __future__ import annotations

import json
import random
from pathlib import Path

from bot.engine.match import Match
from bot.engine.record import replay_deal
from bot.engine.rules import Rules
from bot.render.achievements_view import announcement_text
from bot.render.i18n import Tr
from bot.sandbox import Driver, SimGroup
from bot.stats.achievements import ACHIEVEMENTS, earned_in
from bot.stats.counting import Earned
from bot.stats.entry import Player, entry_of, meta_of
from bot.stats.facts import facts_of
from bot.storage import MatchState, Seat, Table
from bot.tg.services import Services
from tests.bot.helpers import play_until, start_game

RECORDS = Path(__file__).resolve().parents[1] / "records"
ANNOUNCED = "Новые достижения"
TITLES = {
    "first_goat": "🐐 Первый козёл",
    "shmon": "🎯 Шмон ловит даму",
    "shestak": "6️⃣ Шестак",
    "all_tricks": "🧹 Все взятки",
    "eggs": "🥚 Яйца",
    "clean_win": "🧼 Всухую",
    "comeback": "🔥 Камбэк",
    "drivers": "🏇 С погонялами",
}


def _over(group: SimGroup) -> bool:
    return any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)


def _announcements(group: SimGroup) -> list[str]:
    return [m.content for m in group.bot_messages if ANNOUNCED in m.content]


def _seq(driver: Driver, methods: tuple[str, ...], chat_id: int, needle: str) -> int:
    """The first of ``methods`` called on ``chat_id`` with ``needle`` in its text (its place in the log)."""
    return next(
        c.seq
        for c in driver.world.calls
        if c.method in methods and c.ok and str(c.params.get("chat_id")) == str(chat_id)
        and needle in str(c.params.get("text", ""))
    )  # fmt: skip


async def test_a_played_match_announces_what_it_earned_once_after_the_result_and_stats_lists_it(
    app: object, driver: Driver, svc: Services
) -> None:
    assert set(TITLES) == set(ACHIEVEMENTS)
    anya = driver.add_user("Аня")
    await anya.start()
    await anya.send_dm("/stats")
    before = await anya.dm.wait_text("Статистика: Аня")
    assert f"Достижения: 0 из {len(ACHIEVEMENTS)}" in before.content and TITLES["comeback"] in before.content
    # The deals and the bot players are random: a match Аня wins may earn nothing. Then she plays
    # again (in another group), and that quiet finish must have announced nothing.
    for attempt in range(8):
        group = driver.add_group(f"Козлятник {attempt}", [anya])
        await start_game(driver, group, [anya])
        await play_until(driver, svc, [anya], lambda g=group: _over(g), rng=random.Random(4 + attempt))
        table = await svc.storage.load_table(group.id, None)
        assert table is not None and table.status == "over" and table.match is not None
        entry = entry_of(table, at=table.updated_at)
        meta = meta_of(entry)
        assert meta is not None
        expected = earned_in(facts_of(entry, meta), meta).get(f"u{anya.id}", [])
        if expected:
            break
        await driver.settle()
        assert _announcements(group) == []
    assert expected, "eight matches without an achievement"
    note = await group.wait_text(ANNOUNCED)
    assert "Аня" in note.content
    for achievement in ACHIEVEMENTS:
        assert (TITLES[achievement] in note.content) == (achievement in expected), achievement
    # After the match's result: the table message showed the goat before the announcement was sent.
    result = "Козлы с погонялами" if table.match.title == "goat_with_drivers" else "Козёл —"
    shown = _seq(driver, ("editMessageText", "sendMessage"), group.id, result)
    assert shown < _seq(driver, ("sendMessage",), group.id, ANNOUNCED)

    # The finish handled again (a restart archives every finished table): nothing more is announced.
    await svc.tables.archive(table)
    await svc.driver.resume()
    await driver.settle()
    assert len(_announcements(group)) == 1

    await anya.send_dm("/stats")
    mine = await anya.dm.wait_text("Статистика: Аня")
    assert f"Достижения: {len(expected)} из {len(ACHIEVEMENTS)}" in mine.content
    for achievement in expected:
        assert TITLES[achievement] in mine.content
    assert "Ещё впереди:" in mine.content
    await driver.settle()
    assert not driver.failed_calls(), driver.failed_calls()[:3]


async def test_a_stored_finish_archived_at_a_restart_announces_once_in_english(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Goat pen", [anya])
    chat = await svc.storage.chat_settings(group.id)
    chat.lang = "en"
    await svc.storage.save_chat_settings(group.id, chat)
    # A finished match stored as the table's (classic_match_eggs: Аня in seat 0, pair A the goat, two eggs),
    # as a process killed before archiving it leaves it: the next start archives it.
    record = json.loads((RECORDS / "classic_match_eggs.json").read_text())
    seats: list[Seat | None] = [Seat(kind="human", name="Аня", user_id=anya.id)]
    seats += [Seat(kind="bot", name=f"bot {i}", level="easy") for i in (1, 2, 3)]
    rules = Rules.parse(record["rules"])
    played = Match(rules, dealer=record["deals"][0]["dealer"])
    for deal in record["deals"]:
        result = replay_deal(deal, rules, played).result
        assert result is not None
        played.add(result)
    assert (played.loser, played.eggs) == (0, 2)
    match = MatchState(
        first_dealer=record["deals"][0]["dealer"], dealer=played.dealer, deal_no=played.deal_no,
        penalty=tuple(played.penalty), eggs=played.eggs, eggs_in_row=played.eggs_in_row, loser=played.loser,
        title=played.title, egg_cards=record.get("egg_cards", []), deal_seq=len(record["deals"]),
        deals=record["deals"],
    )  # fmt: skip
    table = Table(
        table_id="eggs01", chat_id=group.id, creator_id=anya.id, status="over", rules=record["rules"],
        seats=seats, match=match, updated_at=1_796_000_000.0,
    )  # fmt: skip
    await svc.storage.save_table(table, ttl=600)
    for _ in range(2):  # a second start announces nothing
        await svc.driver.resume()
        await driver.settle()
    notes = [m.content for m in group.bot_messages if "New achievements" in m.content]
    assert len(notes) == 1
    assert "🐐 First goat — Аня: be the goat for the first time" in notes[0]
    assert "🥚 Eggs — Аня: play a deal that ends 60 : 60" in notes[0]
    await anya.send(group, "/stats")
    mine = await group.wait_text("Stats: Аня")
    assert f"Achievements: 2 of {len(ACHIEVEMENTS)}" in mine.content
    assert "🐐 First goat — 30.11.2026" in mine.content and "🥚 Eggs — 30.11.2026" in mine.content
    await driver.settle()
    assert not driver.failed_calls(), driver.failed_calls()[:3]


def test_the_announcement_names_each_achievement_once_with_everyone_who_earned_it() -> None:
    anya, boris = (Player(kind="human", name=n, user_id=i) for i, n in ((1, "Аня"), (2, "<Борис>")))
    earned = [Earned(anya, "eggs"), Earned(boris, "first_goat"), Earned(boris, "eggs")]
    text = announcement_text(Tr("ru"), earned)
    assert text.splitlines() == [
        "🏅 <b>Новые достижения!</b>",
        "🐐 Первый козёл — &lt;Борис&gt;: впервые остаться козлом",
        "🥚 Яйца — Аня, &lt;Борис&gt;: сыграть раздачу 60 : 60",
    ]  # in the achievements' order, names escaped
    assert "trailing by 10 penalty points" in announcement_text(Tr("en"), [Earned(anya, "comeback")])
