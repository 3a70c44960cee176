"""/top, /stats, /history with its replay viewer, and /export, through the emulator (issue 22)."""

from __future__ import annotations

import asyncio
import io
import json
import random
from pathlib import Path

from PIL import Image

from bot.engine.replay import main as replay_main
from bot.sandbox import Driver
from bot.stats.counting import archive
from bot.stats.entry import Meta, Player, make_entry
from bot.storage import RedisStorage
from bot.storage.redis_store import HISTORY_KEPT
from bot.storage.stats_store import CHAT_PARTS
from bot.table.game import replay
from bot.table.payloads import View
from bot.tg.services import Services
from tests.bot.helpers import inject, play_until, start_game

RECORDS = Path(__file__).resolve().parents[1] / "records"


def _over(group) -> bool:  # type: ignore[no-untyped-def]
    return any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)


async def test_a_played_match_shows_in_top_stats_history_the_viewer_and_export(
    app: object, driver: Driver, svc: Services, tmp_path: Path
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await anya.send(group, "/top")
    assert "ни одной партии" in (await group.wait_text("Таблица чата")).content
    await start_game(driver, group, [anya])
    await play_until(driver, svc, [anya], lambda: _over(group), rng=random.Random(4))
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "over"
    await svc.tables.archive(table)  # the finish handled again (a restart): counted once
    assert len(await svc.storage.history(group.id, HISTORY_KEPT)) == 1
    # A process killed between saving the last move and archiving it: the next start archives it.
    storage = svc.storage
    assert isinstance(storage, RedisStorage)
    await storage.client.delete(storage.history_key(group.id))
    for part in CHAT_PARTS:
        await storage.client.delete(storage.stats.chat_stats_key(group.id, part))
    for _ in range(2):  # and a second start changes nothing
        await svc.driver.resume()
        for _ in range(50):
            if await storage.history(group.id):
                break
            await asyncio.sleep(0.1)
    assert len(await storage.history(group.id, HISTORY_KEPT)) == 1

    await anya.send(group, "/top")
    picture = await group.wait_bot_message(lambda m: m.photo_file_id is not None)
    assert "Таблица чата" in picture.content and "Аня: 1 ·" in picture.content
    assert "🤖 бот" in picture.content  # bot players apart
    png = driver.world.files[picture.photo_file_id]  # type: ignore[index]
    assert Image.open(io.BytesIO(png.data)).format == "PNG"
    await anya.tap(picture, "За этот месяц")
    month = await group.wait_bot_message(lambda m: m.photo_file_id is not None and "этот месяц" in m.content)
    assert "Аня: 1 ·" in month.content

    await anya.send(group, "/stats")
    mine = await group.wait_text("Статистика: Аня")
    assert "Партий: 1" in mine.content and "Серия:" in mine.content and "в паре с: 🤖 бот" in mine.content
    await anya.send_dm("/stats")
    assert "Партий: 1" in (await anya.dm.wait_text("Статистика: Аня")).content

    await anya.send(group, "/history")
    listing = await group.wait_text("Последние партии")
    assert "🐐 коз" in listing.content and "Аня" in listing.content
    await anya.tap(listing, "Просмотр 1")
    # Each deal is titled by its number in the match of the deals played; a redeal (void: no tricks)
    # keeps its number and says it was redealt (RULES.md §1).
    deals = table.match.deals  # type: ignore[union-attr]
    void = [replay(d).result.void for d in deals]  # type: ignore[union-attr]

    def title(i: int) -> str:
        n = deals[i].get("deal_no", 1)
        return f"раздача {n} — пересдача" if void[i] else f"раздача {n} из {void.count(False)} · шаг"

    viewer = await group.wait_bot_message(lambda m: "Просмотр" in m.content and title(0) in m.content)
    assert "Карты на руках" in viewer.content

    async def step(label: str, shown: str) -> None:
        before = viewer.edits
        await anya.tap(viewer, label)
        await group.wait_until(viewer, lambda m: m.edits > before and shown in m.content)

    # Deal by deal to the first deal that was played, then trick by trick.
    first = void.index(False)
    for k in range(first):
        await step("Раздача ⏭", title(k + 1))
    await step("▶", "шаг 1 из")
    assert "1. " in viewer.content
    await step("Раздача ⏭", title(first + 1))
    await step("◀", title(first))  # back to the last step of the deal before: its result
    assert "Очки:" in viewer.content

    # A forged button and one naming a match the history no longer has get a clear answer.
    inject(viewer, viewer.buttons[0][0]["callback_data"][:-3] + "xyz")
    forged = await anya.tap(viewer, "👆")
    assert forged.show_alert and forged.answer_text and "кнопка" in forged.answer_text.lower()
    inject(viewer, svc.codec.data(group.id, None, "ffffff", 0, View(0, 0)))
    gone = await anya.tap(viewer, "👆")
    assert gone.show_alert and "уже нет в истории" in (gone.answer_text or "")

    await anya.send(group, "/export")
    document = await group.wait_bot_message(lambda m: m.document_file_id is not None)
    assert "Запись партии" in document.content
    data = driver.world.files[document.document_file_id].data  # type: ignore[index]
    path = tmp_path / "match.json"
    path.write_bytes(data)
    assert replay_main([str(path)]) == 0  # export, then replay it
    assert json.loads(data)["deals"] == table.match.deals  # type: ignore[union-attr]
    await anya.send(group, "/export x")
    await group.wait_text("Номер партии")
    await anya.send_dm("/history")
    await anya.dm.wait_text("только в группе|в группе")
    await driver.settle()
    assert not driver.failed_calls(), driver.failed_calls()[:3]


async def test_the_viewer_never_shows_the_hands_of_a_deal_not_played_to_its_end(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    record = json.loads((RECORDS / "classic_match_goat.json").read_text())
    record["deals"][0]["moves"] = record["deals"][0]["moves"][:10]  # cut short
    seats = [
        Player(kind="human", name=n, user_id=100 + i) for i, n in enumerate(("Аня", "Борис", "Вера", "Глеб"))
    ]
    entry = make_entry(
        record, Meta(id="cut001", chat_id=group.id, at=1_796_000_000.0, seats=seats, finished=False)
    )
    await archive(svc.storage, entry)
    await anya.send(group, "/history")
    listing = await group.wait_text("Последние партии")
    assert "остановлена" in listing.content
    tap = await anya.tap(listing, "Просмотр 1")
    assert tap.show_alert and "не доиграна" in (tap.answer_text or "")
    await driver.settle()
    assert not any("Карты на руках" in m.content for m in group.bot_messages)


async def test_top_falls_back_to_text_in_the_groups_language_when_the_picture_is_refused(
    app: object, driver: Driver, svc: Services
) -> None:
    users = [driver.add_user(name) for name in ("Аня", "Борис", "Вера", "Глеб")]
    group = driver.add_group("Goat pen", users)
    chat = await svc.storage.chat_settings(group.id)
    chat.lang = "en"
    await svc.storage.save_chat_settings(group.id, chat)
    record = json.loads((RECORDS / "classic_match_goat.json").read_text())
    for i, order in enumerate(((0, 1, 2, 3), (0, 3, 2, 1))):
        seats = [Player(kind="human", name=users[j].name, user_id=users[j].id) for j in order]
        await archive(
            svc.storage, make_entry(record, Meta(id=f"m{i}", chat_id=group.id, at=1.8e9 + i, seats=seats))
        )
    driver.world.inject_faults(method="sendPhoto", status=400, count=1, chat_id=group.id)
    await users[1].send(group, "/top")
    text = await group.wait_text("Chat standings")
    assert text.photo_file_id is None
    # Аня and Вера are pair A, the goat, both times; Борис and Глеб (seats swapped) won both.
    lines = text.content.splitlines()
    assert lines[2].startswith("1. Борис: 2 · 2") or lines[2].startswith("1. Глеб: 2 · 2")
    assert "Аня: 2 · 0" in text.content
    assert "Best pairs" in text.content and "Worst pairs" in text.content
    assert "Аня and Вера: 2 together, 0 won (0%)" in text.content
    await driver.settle()


async def test_help_and_the_command_menus_name_the_new_commands(app: object, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await anya.send(group, "/help")
    text = (await group.wait_text("/newgame")).content
    for command in ("/top", "/stats", "/history", "/export"):
        assert command in text, command
    await driver.settle()
    menus = {key: [c["command"] for c in menu] for key, menu in driver.world.commands.items()}
    groups = [names for key, names in menus.items() if "all_group_chats" in key]
    private = [names for key, names in menus.items() if "all_private_chats" in key]
    assert len(groups) == len(private) == 2  # Russian and English
    assert all({"top", "stats", "history", "export"} <= set(names) for names in groups)
    assert all("stats" in names and "top" not in names for names in private)


def test_the_standings_picture_grows_with_its_rows_and_pairs() -> None:
    from bot.render.i18n import Tr
    from bot.render.standings_view import WIDTH, standings_png
    from bot.stats.standings import standings_of

    tr = Tr("ru")
    one = {"u1|played": 1, "u1|won": 1, "u2|played": 1}
    names = {"u1": "Аня", "u2": "Борис", "u3": "Вера"}
    more = {**one, "u3|played": 2, "u3|goat": 2, "beasy|played": 1, "p|u1|u3|n": 1, "p|u1|u3|won": 1}
    more |= {"p|u2|u3|n": 1, "p|u2|u3|won": 0}
    small = Image.open(io.BytesIO(standings_png(tr, standings_of(one, names), names, month=False)))
    big = Image.open(io.BytesIO(standings_png(tr, standings_of(more, names), names, month=True)))
    assert small.format == big.format == "PNG" and small.size[0] == big.size[0] == WIDTH
    assert big.size[1] > small.size[1] + 4 * 26  # the bots' line, and a best and a worst pair
