"""The lobby: seats, deep-link joining, bot players, the rules picker, expiry, forum topics, languages."""

from __future__ import annotations

import asyncio
import re

from bot.engine import Rules
from bot.render.i18n import Tr
from bot.render.rules_text import glossary
from bot.sandbox import Driver
from bot.tg.services import Services
from tests.bot.helpers import buttons, inject, lobby, sit, start_game, stop_game


async def test_joining_by_deep_link_seats_a_person_who_never_started_the_bot(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    message = await lobby(driver, group, anya)
    tap = await boris.tap(message, "Место 2")
    assert tap.answer_url is not None and tap.answer_url.startswith("https://t.me/kozel_sandbox_bot?start=j")
    assert (await svc.storage.load_table(group.id, None)).seats[1] is None  # type: ignore[union-attr]
    await boris.open_url(tap.answer_url)
    welcome = await boris.dm.wait_text("Вы сели за стол")
    assert "Козлятник" in welcome.content and "место 2" in welcome.content
    await group.wait_until(message, lambda m: "Борис" in m.content)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.seats[1] is not None and table.seats[1].user_id == boris.id


async def test_a_double_tap_on_a_seat_never_stands_the_person_up(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await anya.start()
    await anya.dm.wait_bot_message()
    first, second = await asyncio.gather(anya.tap(message, "Место 2"), anya.tap(message, "Место 2"))
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.seats[1] is not None and table.seats[1].user_id == anya.id
    # One tap seated her; the other is a harmless repeat, told with a toast.
    answers = sorted([first.answer_text or "", second.answer_text or ""])
    assert answers[0] == "" and "уже на месте 2" in answers[1]
    assert not first.show_alert and not second.show_alert
    again = await anya.tap(message, "Место 2")
    assert not again.show_alert and "Встать: /leave" in (again.answer_text or "")
    assert (await svc.storage.load_table(group.id, None)).seats[1].user_id == anya.id  # type: ignore[union-attr]
    await group.wait_until(message, lambda m: "Аня" in m.content)


async def test_a_double_tap_on_a_bot_button_keeps_the_bot(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    add = await asyncio.gather(anya.tap(message, "+ 🤖"), anya.tap(message, "+ 🤖"))
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.seats[0] is not None and table.seats[0].is_bot
    assert not any(t.show_alert for t in add)
    await group.wait_until(message, lambda m: "− 🤖" in str(m.buttons))
    removed = await asyncio.gather(anya.tap(message, "− 🤖"), anya.tap(message, "− 🤖"))
    assert (await svc.storage.load_table(group.id, None)).seats[0] is None  # type: ignore[union-attr]
    assert not any(t.show_alert for t in removed)


async def test_newgame_during_a_lobby_points_to_the_lobby(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await anya.send(group, "/newgame")
    answer = await group.wait_text("Здесь уже собирают стол — свободные места здесь")
    assert answer.reply_to == message.message_id
    assert len([m for m in group.bot_messages if m.buttons]) == 1
    assert not any("уже идёт игра" in m.content for m in group.bot_messages)


async def test_newgame_where_a_game_runs_points_to_its_table(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    await anya.send(group, "/newgame")
    answer = await group.wait_text("уже идёт игра")
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and answer.reply_to == table.table_message_id


async def test_a_seat_tap_on_a_lobby_whose_game_started_says_so(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    message = await lobby(driver, group, anya)
    seat = next(data for label, _, data in buttons(svc, message) if "Место 2" in label)
    await sit(anya, message, 0, group)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: "Посадить туда" in m.content)
    await anya.tap(message, "с ботами")
    await group.wait_until(message, lambda m: "Игра началась" in m.content)
    await boris.start()
    await boris.dm.wait_bot_message()
    inject(message, seat)  # a client still showing the lobby's keyboard
    tap = await boris.tap(message, data=seat)
    assert tap.answer_text is not None and "Игра уже началась" in tap.answer_text
    assert "закончилась" not in tap.answer_text


async def test_bot_players_and_their_level(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await anya.tap(message, "Уровень ботов")
    await group.wait_until(message, lambda m: m.edits >= 1)
    await anya.tap(message, "+ 🤖")
    await group.wait_until(message, lambda m: "Бот №1" in m.content)
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.seats[0] is not None and table.seats[0].is_bot
    await anya.tap(message, "− 🤖")
    await group.wait_until(message, lambda m: "Бот №1" not in m.content)


async def test_only_the_creator_picks_the_rules_and_the_chat_remembers_them(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    message = await lobby(driver, group, anya)
    refused = await boris.tap(message, "Правила")
    assert not refused.show_alert and "только создатель стола" in (refused.answer_text or "")
    await anya.tap(message, "Правила")
    await group.wait_until(message, lambda m: any("с прикупом" in b["text"] for r in m.buttons for b in r))
    await anya.tap(message, "с прикупом")
    await group.wait_until(message, lambda m: "Правила: с прикупом" in m.content)
    await anya.tap(message, "Игра до")
    await group.wait_until(message, lambda m: "Игра до: 6" in m.content)
    await anya.tap(message, "Назад")
    await sit(anya, message, 0, group)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: "Посадить туда ботов" in m.content)
    await anya.tap(message, "с ботами")
    await group.wait_until(message, lambda m: "Игра началась" in m.content)
    settings = await svc.storage.chat_settings(group.id)
    assert settings.rules == {"preset": "draw", "options": {"match_target": 6}}
    await stop_game(anya, group)
    second = await lobby(driver, group, anya)
    assert "Правила: с прикупом, Игра до: 6" in second.content


async def test_each_forum_topic_holds_its_own_table(app: object, driver: Driver, svc: Services) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    forum = driver.add_group("Клуб", [anya, boris], forum=True)
    one, two = forum.add_topic("Стол 1", by=anya), forum.add_topic("Стол 2", by=boris)
    await anya.send(forum, "/newgame", thread_id=one)
    first = await forum.wait_bot_message(lambda m: bool(m.buttons))
    await boris.send(forum, "/newgame", thread_id=two)
    second = await forum.wait_bot_message(lambda m: bool(m.buttons))
    assert (first.thread_id, second.thread_id) == (one, two)
    await sit(anya, first, 0, forum)
    await anya.tap(first, "Начать")
    await forum.wait_until(first, lambda m: "Посадить туда ботов" in m.content)
    await anya.tap(first, "с ботами")
    table_message = await forum.wait_bot_message(lambda m: "Раздача №" in m.content)
    assert table_message.thread_id == one
    assert (await svc.storage.load_table(forum.id, two)).status == "lobby"  # type: ignore[union-attr]


async def test_group_language_and_personal_language(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    ben = driver.add_user("Ben", language_code="en")
    group = driver.add_group("Club", [anya, ben])
    await anya.send(group, "/language")
    choice = await group.wait_text("Выберите язык")
    await anya.tap(choice, "English")
    await group.wait_until(choice, lambda m: "Language: English" in m.content)
    await anya.send(group, "/newgame")
    message = await group.wait_bot_message(lambda m: bool(m.buttons))
    assert "gathering a table" in message.content
    await ben.start()
    hello = await ben.dm.wait_bot_message()
    assert hello.content.startswith("Hi!")
    await anya.start()
    assert (await anya.dm.wait_bot_message()).content.startswith("Привет")


async def test_commands_are_registered_for_groups_and_private_chats(
    app: object, driver: Driver, svc: Services
) -> None:
    commands = driver.world.commands
    group_menu = next(v for k, v in commands.items() if "all_group_chats" in k and '""' in k)
    private_menu = next(v for k, v in commands.items() if "all_private_chats" in k and '""' in k)
    assert {c["command"] for c in group_menu} >= {
        "newgame",
        "score",
        "rules",
        "leave",
        "stop",
        "language",
        "help",
    }
    assert {c["command"] for c in private_menu} >= {"start", "help", "language"}
    assert any('"en"' in k for k in commands)


async def test_rules_explain_the_tables_rules_in_the_chats_language(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await anya.send(group, "/rules")
    text = (await group.wait_text("Козёл")).content
    assert "шмон" in text and "Настройки:" in text
    await anya.start()
    await anya.dm.wait_bot_message()
    await anya.send_dm("/rules")
    assert "черпак" in (await anya.dm.wait_text("Настройки")).content


async def test_a_player_at_two_tables_gets_two_labelled_hands(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    first, second = driver.add_group("Козлятник", [anya]), driver.add_group("Дача", [anya])
    await start_game(driver, first, [anya])
    await start_game(driver, second, [anya])

    def hands() -> list[str] | None:
        titles = [m.content.split(" · ")[0] for m in anya.dm.bot_messages if "раздача №" in m.content]
        return titles if len(titles) >= 2 else None

    titles = await driver.wait_for(hands, what="two hands")
    assert any("Козлятник" in t for t in titles) and any("Дача" in t for t in titles)


async def test_rules_and_the_rules_menu_explain_every_term_in_one_line(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await anya.send(group, "/rules")
    text = (await group.wait_text("Словарь")).content
    terms = ("Шмон", "Матадоры", "Пара", "Черпак", "Шестак", "Яйца", "Козёл", "Хвалёж", "Штаны", "Обмен")
    lines = text.split("\n")
    for term in terms:
        # One line, starting with the term, saying what it is.
        assert sum(line.startswith(f"• {term}") for line in lines) == 1, term
    message = await lobby(driver, group, anya)
    await anya.tap(message, "Правила")
    await group.wait_until(message, lambda m: "Словарь" in m.content and "• Черпак" in m.content)


def test_english_texts_use_english_words_with_the_russian_term_in_brackets() -> None:
    """ "para", "cherpak", "shestak", "shmon" appear only in brackets, after the English word."""
    tr = Tr("en")
    for preset in ("classic", "tricks"):
        text = glossary(tr, Rules.make(preset))
        for english, russian in (
            ("Single loss", "para"),
            ("Double loss", "cherpak"),
            ("Triple loss", "shestak"),
        ):
            assert f"{english}</b> ({russian}," in text
    keys = (
        "rules.common",
        "rules.scoring",
        "cat.para",
        "cat.cherpak",
        "cat.shestak",
        "opt.cherpak_max",
        "event.queen_caught",
    )
    for key in keys:
        outside = re.sub(r"\([^)]*\)", "", tr(key)).lower()
        assert not re.search(r"\b(para|cherpak|shestak|shmon)\b", outside), (key, tr(key))


def test_every_option_button_carries_a_code_of_its_own() -> None:
    from bot.render import rules_menu

    names = {name for preset in rules_menu.presets() for name, _ in rules_menu.options_of(preset)}
    codes = {rules_menu.option_code(name) for name in names}
    assert len(codes) == len(names)


async def test_an_option_button_of_another_preset_changes_nothing(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await anya.tap(message, "Правила")
    await group.wait_until(message, lambda m: any("Матадоров" in b["text"] for r in m.buttons for b in r))
    stale = next(data for label, _, data in buttons(svc, message) if label.startswith("Матадоров"))
    await anya.tap(message, "с открытым козырем")
    await group.wait_until(
        message, lambda m: any("✓ с открытым козырем" in b["text"] for r in m.buttons for b in r)
    )
    before = (await svc.storage.load_table(group.id, None)).rules  # type: ignore[union-attr]
    inject(message, stale)
    tap = await anya.tap(message, data=stale)
    assert tap.show_alert and "устарело" in (tap.answer_text or "")
    after = await svc.storage.load_table(group.id, None)
    assert after is not None and after.rules == before
