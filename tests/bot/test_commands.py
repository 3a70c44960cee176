"""Commands: their replies go through the outbox (paced with the game), /language is guarded in groups."""

from __future__ import annotations

import random

from bot.app import services_of
from bot.sandbox import Driver, Emulator, SimGroup, SimUser, StoredMessage
from bot.sandbox.driver import AnyApplication
from bot.table.codec import Button
from bot.tg.services import Services
from tests.bot import test_rate
from tests.bot.helpers import buttons, inject, lobby, play_until, sit, start_game

# The flood-limited emulator and the bot paced on its virtual clock (see test_rate).
clock, limited, paced_app = test_rate.clock, test_rate.limited, test_rate.paced_app

LANG_NOT_ALLOWED = "Язык группы меняет создатель стола или админ чата."


async def _ask_language(user: SimUser, chat: SimGroup | None = None) -> StoredMessage:
    if chat is None:
        await user.send_dm("/language")
        return await user.dm.wait_bot_message()
    await user.send(chat, "/language")
    return await chat.wait_bot_message()


async def test_a_member_may_not_change_the_groups_language(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris, vera = driver.add_user("Аня"), driver.add_user("Борис"), driver.add_user("Вера")
    group = driver.add_group("Козлятник", [anya, boris, vera])  # Аня created the group
    await lobby(driver, group, boris)  # Борис gathers the table
    refused = await _ask_language(vera, group)
    assert refused.content == LANG_NOT_ALLOWED and not refused.buttons

    # Buttons someone allowed asked for are there for everyone to see; Вера's tap is refused.
    menu = await _ask_language(boris, group)
    english = next(d for label, _, d in buttons(svc, menu) if "English" in label)
    tap = await vera.tap(menu, data=english)
    assert tap.show_alert and tap.answer_text == LANG_NOT_ALLOWED
    assert (await svc.storage.chat_settings(group.id)).lang is None

    # A forged button for another chat does nothing either.
    other = svc.codec.pack(Button(group.id - 1, None, "0", 0, "Nen"))
    inject(menu, other, "🇬🇧")
    tap = await boris.tap(menu, "🇬🇧")
    assert tap.show_alert and tap.answer_text == "Эта кнопка не работает."

    # The table's creator may.
    menu = await _ask_language(boris, group)
    tap = await boris.tap(menu, data=english)
    assert not tap.show_alert and tap.answer_text == "Language: English."
    assert (await svc.storage.chat_settings(group.id)).lang == "en"


async def test_an_admin_or_the_owner_may_change_it_without_a_table(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris, gleb = driver.add_user("Аня"), driver.add_user("Борис"), driver.add_user("Глеб")
    group = driver.add_group("Козлятник", [anya, boris, gleb], admins=[gleb])
    refused = await _ask_language(boris, group)
    assert refused.content == LANG_NOT_ALLOWED
    for user, lang in ((gleb, "English"), (anya, "Русский")):
        menu = await _ask_language(user, group)
        tap = await user.tap(menu, data=next(d for label, _, d in buttons(svc, menu) if lang in label))
        assert not tap.show_alert, tap.answer_text
    assert (await svc.storage.chat_settings(group.id)).lang == "ru"
    assert len([m for m in group.bot_messages if m.content == LANG_NOT_ALLOWED]) == 1


async def test_in_private_each_person_sets_their_own(app: object, driver: Driver, svc: Services) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    for user in (anya, boris):
        await user.start()
        await user.dm.wait_bot_message()
    menu = await _ask_language(anya)
    tap = await anya.tap(menu, data=next(d for label, _, d in buttons(svc, menu) if "English" in label))
    assert tap.answer_text == "Language: English."
    assert (await svc.storage.user_settings(anya.id)).lang == "en"
    assert (await svc.storage.user_settings(boris.id)).lang is None
    await anya.send_dm("/help")
    assert "/newgame" in (await anya.dm.wait_bot_message()).content
    await boris.send_dm("/language")
    assert (await boris.dm.wait_bot_message()).content == "Выберите язык:"


async def test_a_burst_of_commands_during_a_game_keeps_the_groups_pace(
    paced_app: AnyApplication, limited: Emulator
) -> None:
    svc: Services = services_of(paced_app)
    driver = Driver(limited.world, default_timeout=20.0)
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    message = await lobby(driver, group, anya)
    await sit(anya, message, 0, group)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: any("с ботами" in b["text"] for r in m.buttons for b in r))
    await anya.tap(message, "с ботами")
    await group.wait_text("раздача|Раздача")

    # Борис (not seated, not an admin) tries every group command three times; Аня asks for the score.
    commands = ["/score", "/help", "/rules", "/language", "/newgame", "/leave", "/stop"] * 3
    for command in commands:
        await boris.send(group, command)
    await anya.send(group, "/score")
    # On the virtual clock the outbox's waits jump time ahead: a tap made while the burst is being
    # paced out would look too old to Telegram. The game's edits meanwhile share the same pace.
    await driver.settle()
    await svc.outbox.drain()

    def played_a_while() -> bool:
        over = any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)
        return over or len(driver.calls("answerCallbackQuery")) >= 40

    await play_until(driver, svc, [anya], played_a_while, rng=random.Random(5), max_taps=400)
    await svc.outbox.drain()
    await driver.settle()

    assert [c for c in driver.calls() if c.error_code == 429] == []
    assert not driver.failed_calls(), driver.failed_calls()[:3]
    sent = ("sendMessage", "sendPhoto", "editMessageText")
    times = [c.time for c in driver.calls() if c.chat_id == group.id and c.method in sent]
    for i, t in enumerate(times):
        in_minute = sum(1 for u in times[i:] if u < t + 60)
        assert in_minute <= 20, f"{in_minute} group calls within a minute from call {i}"
    # Every kind of answer came, each at least once; one still waiting was not queued again.
    texts = [m.content for m in group.bot_messages]
    for expected in (
        "/newgame — собрать стол",  # /help
        "Здесь уже идёт игра",  # /newgame, a reply pointing at the table
        "Вы не сидите за столом.",  # /leave
        "Остановить игру может создатель",  # /stop
        LANG_NOT_ALLOWED,  # /language
    ):
        assert any(expected in t for t in texts), (expected, group.transcript())
    running = [m for m in group.bot_messages if m.content.startswith("Здесь уже идёт игра")]
    # The table (deleted once its deal is summed up), not the lobby.
    everything = limited.world.chat_messages(group.id, include_deleted=True)
    shown = {m.message_id for m in everything if m.from_bot} - {message.message_id}
    assert running and all(m.reply_to in shown for m in running), [m.reply_to for m in running]
    assert [c for c in driver.calls("sendPhoto") if c.chat_id == group.id], "the /score picture"
    assert len([c for c in driver.calls() if c.chat_id == group.id and c.method in sent[:2]]) < len(commands)


async def test_the_command_menus_are_set_for_groups_private_chats_and_the_sandbox_page(
    app: object, driver: Driver
) -> None:
    await driver.settle()
    shown = [c["command"] for c in driver.world.default_commands()]
    assert shown[:2] == ["newgame", "score"] and "start" not in shown
    # Every description starts with a capital, /settings's too, in each language.
    for menu in driver.world.commands.values():
        assert all(c["description"][:1].isupper() for c in menu), menu


async def test_help_lists_every_group_command(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await anya.send(group, "/help")
    text = (await group.wait_text("/newgame")).content
    for command in ("/newgame", "/score", "/rules", "/leave", "/stop", "/settings", "/language"):
        assert command in text, command


async def test_after_the_match_leave_is_refused_and_a_members_stop_finds_no_game(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya])

    def over() -> bool:
        return any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)

    await play_until(driver, svc, [anya], over, rng=random.Random(5))
    await anya.send(group, "/leave")
    await group.wait_text("Матч уже закончился")
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "over" and table.seats[0] is not None
    assert table.seats[0].user_id == anya.id  # still seated: the rematch button is hers to tap
    await boris.send(group, "/stop")
    await group.wait_text("Здесь нет игры")
    assert not any("Остановить игру может" in m.content for m in group.bot_messages)


async def test_a_members_stop_during_a_lobby_finds_no_game(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await lobby(driver, group, anya)
    await boris.send(group, "/stop")
    await group.wait_text("Здесь нет игры")
    assert (await svc.storage.load_table(group.id, None)) is not None
