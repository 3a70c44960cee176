"""End to end: the real python-telegram-bot Application from bot.app, driven through the emulator."""

from __future__ import annotations

from bot.sandbox import Driver
from bot.sandbox.driver import AnyApplication


async def test_group_lobby_flow_with_four_players(app: AnyApplication, driver: Driver) -> None:
    anya, boris, vera, gleb = (driver.add_user(name) for name in ("Аня", "Борис", "Вера", "Глеб"))
    group = driver.add_group("Козлятник", [anya, boris, vera, gleb])

    await anya.send(group, "/newgame@kozel_sandbox_bot")
    lobby = await group.wait_bot_message(lambda m: bool(m.buttons))
    assert lobby.text is not None and lobby.text.startswith("🐐 Козёл — собираемся за столом")
    assert {"offset": 3, "length": 5, "type": "bold"} in lobby.entities
    labels = [b["text"] for row in lobby.buttons for b in row]
    assert "🪑 Место 1: сесть" in labels and "▶️ Начать" in labels

    await boris.start()
    await boris.dm.wait_bot_message()
    tap = await boris.tap(lobby, "Место 2")
    assert not tap.show_alert
    edited = await group.wait_until(lobby, lambda m: "Борис" in m.content)
    assert "Пара 2: Борис и свободно" in edited.content

    await driver.settle()
    assert not driver.failed_calls(), driver.failed_calls()
    methods = [call.method for call in driver.calls()]
    assert methods[:2] == ["getMe", "deleteWebhook"] or "getMe" in methods
    assert {"sendMessage", "answerCallbackQuery", "editMessageText"} <= set(methods)


async def test_start_with_an_unknown_payload_and_help(app: AnyApplication, driver: Driver) -> None:
    vera = driver.add_user("Вера")
    await vera.start("join_42")
    reply = await vera.dm.wait_bot_message()
    assert reply.content == "Эта ссылка устарела."
    await vera.send_dm("/help")
    assert "/newgame" in (await vera.dm.wait_text("Козёл")).content


async def test_a_seat_tap_opens_the_bot_by_deep_link(app: AnyApplication, driver: Driver) -> None:
    gleb = driver.add_user("Глеб")
    group = driver.add_group("Стол", [gleb])
    await gleb.send(group, "/newgame")
    lobby = await group.wait_bot_message(lambda m: bool(m.buttons))
    result = await gleb.tap(lobby, "Место 1", follow_url=True)
    assert result.answer_url is not None and result.answer_url.startswith(
        "https://t.me/kozel_sandbox_bot?start="
    )
    assert gleb.dm.messages[0].text is not None and gleb.dm.messages[0].text.startswith("/start j")
    await gleb.dm.wait_text("Вы сели за стол")
    await group.wait_until(lobby, lambda m: "Глеб" in m.content)


async def test_forum_topic_messages_stay_in_topic(app: AnyApplication, driver: Driver) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    forum = driver.add_group("Клуб", [anya, boris], forum=True)
    topic = forum.add_topic("Стол №1", by=anya)
    await boris.send(forum, "/newgame", thread_id=topic)
    lobby = await forum.wait_bot_message(lambda m: bool(m.buttons))
    assert lobby.thread_id == topic
    assert lobby in forum.topic_messages(topic)
    await boris.tap(lobby, "Уровень ботов")  # the level is the creator's to set
    await forum.wait_until(lobby, lambda m: m.edits >= 1)
    assert lobby.thread_id == topic


async def test_non_command_group_chatter_is_hidden_by_privacy_mode(
    app: AnyApplication, driver: Driver
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await anya.send(group, "всем привет")
    await anya.send(group, "/newgame@some_other_bot")
    await driver.settle()
    updates = [u for call in driver.world.calls_of("getUpdates") for u in call.result]
    texts = [u["message"].get("text") for u in updates if "message" in u]
    assert "всем привет" not in texts and "/newgame@some_other_bot" not in texts
    assert group.bot_messages == []
