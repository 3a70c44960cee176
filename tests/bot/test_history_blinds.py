"""/history names each match's variant and its blinds as the table does; /top and /stats count no
blind as a player (issue 34, items 2 and 8)."""

from __future__ import annotations

import json
from pathlib import Path

from bot.engine.rules import Rules
from bot.sandbox import Driver
from bot.stats.counting import archive
from bot.stats.entry import BLIND_KEY, Meta, Player, make_entry
from bot.stats.standings import personal_of, standings_of
from bot.tg.services import Services

RECORDS = Path(__file__).resolve().parents[1] / "records"
NAMES = ("Аня", "Борис", "Вера", "Глеб")


async def _archive(svc: Services, chat_id: int, name: str, match_id: str, at: float) -> None:
    """A golden match record kept in the chat's history as the bot keeps one (a blind's seat is stored
    as a bot of no level)."""
    record = json.loads((RECORDS / f"{name}.json").read_text())
    rules = Rules.parse(record["rules"])
    seats = [
        Player(kind="human", name=NAMES[s], user_id=100 + s) if p is not None else Player(kind="bot")
        for s, p in enumerate(rules.seating(1))
    ]
    await archive(svc.storage, make_entry(record, Meta(id=match_id, chat_id=chat_id, at=at, seats=seats)))


async def test_history_names_the_variant_of_each_match_and_its_blinds_as_the_table_does(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await _archive(svc, group.id, "classic_match_goat", "m1", 1_796_000_000.0)
    await _archive(svc, group.id, "tricks_match_all_nine", "m2", 1_796_000_100.0)
    await _archive(svc, group.id, "two_dummies_match_goat", "m3", 1_796_000_200.0)
    await _archive(svc, group.id, "dummy_match_blind_rotates", "m4", 1_796_000_300.0)
    await anya.send(group, "/history")
    listing = (await group.wait_text("Последние партии")).content
    rows = listing.split("\n")[1:]
    rotates, blinds, tricks, classic = ("\n".join(rows[i * 3 : i * 3 + 3]) for i in range(4))
    assert "классический козёл" in classic and "Аня и Вера против Борис и Глеб" in classic, classic
    assert "на взятки" in tricks, tricks
    assert "с двумя слепыми" in blinds, blinds
    assert "Аня и 🙈 слепой (Аня) против Борис и 🙈 слепой (Борис)" in blinds, blinds
    assert "со слепым" in rotates and "Слепой переходит по кругу" in rotates, rotates
    assert "Аня, Борис, Вера" in rotates and "слепой" not in rotates.split("\n")[1], rotates
    assert "Бот" not in listing, listing
    # The replay viewer names the blinds the same way.
    await anya.tap(group.bot_messages[-1], "Просмотр 2")
    viewer = await group.wait_bot_message(lambda m: "Просмотр" in m.content and "шаг 0" in m.content)
    assert "🙈 слепой (Аня): " in viewer.content and "Бот" not in viewer.content, viewer.content


async def test_history_names_the_variant_in_english(app: object, driver: Driver, svc: Services) -> None:
    ann = driver.add_user("Ann", language_code="en")
    group = driver.add_group("Goats", [ann])
    await _archive(svc, group.id, "two_dummies_match_goat", "m1", 1_796_000_000.0)
    await _archive(svc, group.id, "tricks_match_all_nine", "m2", 1_796_000_100.0)
    await ann.send(group, "/language")
    choice = await group.wait_text("Выберите язык")
    await ann.tap(choice, "English")
    await group.wait_until(choice, lambda m: "Language: English" in m.content)
    await ann.send(group, "/history")
    listing = (await group.wait_text("Latest matches")).content
    assert "trick counting" in listing and "with two blinds" in listing, listing
    assert "🙈 blind" in listing and "Bot" not in listing, listing


async def test_top_and_stats_list_no_blind_as_a_bot_player(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await _archive(svc, group.id, "two_dummies_match_goat", "m1", 1_796_000_000.0)
    counts, names = await svc.storage.standings(group.id, "all")
    st = standings_of(counts, names)
    assert [r.name for r in st.people] and not st.bots, st
    assert not any(k.startswith(BLIND_KEY) for k in counts), counts
    mine = personal_of(await svc.storage.personal(100))
    assert mine.figures["played"] == 1 and mine.partner_key is None, mine
    await anya.send(group, "/top")
    top = await group.wait_bot_message(lambda m: "Таблица чата" in m.content)
    assert "🤖" not in top.content and "(bot)" not in top.content, top.content


def test_standings_stored_before_the_fix_hide_a_blind_counted_as_a_bot() -> None:
    counts = {"u100|played": 1, "u100|won": 1, f"{BLIND_KEY}|played": 1, f"{BLIND_KEY}|won": 1}
    st = standings_of(counts, {"u100": "Аня", BLIND_KEY: ""})
    assert [r.key for r in st.people] == ["u100"] and not st.bots
    mine = personal_of({"played": "1", f"partner|{BLIND_KEY}|n": "1", f"partner|{BLIND_KEY}|won": "1"})
    assert mine.partner_key is None
