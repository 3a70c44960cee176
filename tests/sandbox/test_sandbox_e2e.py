"""End to end: the real python-telegram-bot Application from bot.app, driven through the emulator."""

from __future__ import annotations

from bot.sandbox import Driver
from bot.sandbox.driver import AnyApplication


async def test_group_demo_flow_with_four_players(app: AnyApplication, driver: Driver) -> None:
    anya, boris, vera, gleb = (driver.add_user(name) for name in ("Аня", "Борис", "Вера", "Глеб"))
    group = driver.add_group("Козлятник", [anya, boris, vera, gleb])

    await anya.send(group, "/demo@kozel_sandbox_bot")
    prompt = await group.wait_bot_message(lambda m: bool(m.buttons))
    assert prompt.text == "Демо: что объявляете?"
    assert prompt.entities == [{"offset": 0, "length": 4, "type": "bold"}]
    assert prompt.reply_to is not None  # reply_text quotes the command
    assert [b["text"] for row in prompt.buttons for b in row] == ["♣ Трефы — козыри", "🤷 Пас"]

    tap = await boris.tap(prompt, "Пас")
    assert tap.answer_text == "Вы выбрали: 🤷 Пас"
    assert not tap.show_alert
    edited = await group.wait_until(prompt, lambda m: "Борис" in m.content)
    assert edited.text == "Демо: Борис выбирает «🤷 Пас»."
    assert edited.buttons == []  # editing text without reply_markup drops the keyboard, as on Telegram

    await driver.settle()
    assert not driver.failed_calls(), driver.failed_calls()
    methods = [call.method for call in driver.calls()]
    assert methods[:2] == ["getMe", "deleteWebhook"]
    assert {"sendMessage", "answerCallbackQuery", "editMessageText"} <= set(methods)


async def test_start_with_deep_link_payload_replies_in_private(app: AnyApplication, driver: Driver) -> None:
    vera = driver.add_user("Вера")
    await vera.start("join_42")
    reply = await vera.dm.wait_text("join_42")
    assert "<code>join_42</code>" in reply.html
    await vera.send_dm("/help")
    assert "/demo" in (await vera.dm.wait_text("Команды")).content


async def test_deep_link_in_a_url_button_starts_the_bot(app: AnyApplication, driver: Driver) -> None:
    gleb = driver.add_user("Глеб")
    group = driver.add_group("Стол", [gleb])
    message = driver.world.user_sends(gleb.id, group.id, "/demo")
    prompt = await group.wait_bot_message(lambda m: bool(m.buttons))
    # A url button is what the real bot will use for "play in private": simulate one on the prompt.
    prompt.reply_markup = {
        "inline_keyboard": [[{"text": "В личку", "url": "https://t.me/kozel_sandbox_bot?start=g1"}]]
    }
    result = await gleb.tap(prompt, "В личку", follow_url=True)
    assert result.url == "https://t.me/kozel_sandbox_bot?start=g1"
    assert gleb.dm.messages[0].text == "/start g1"
    await gleb.dm.wait_text("g1")
    assert message.message_id < prompt.message_id


async def test_forum_topic_reply_stays_in_topic(app: AnyApplication, driver: Driver) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    forum = driver.add_group("Клуб", [anya, boris], forum=True)
    topic = forum.add_topic("Стол №1", by=anya)
    await boris.send(forum, "/demo", thread_id=topic)
    prompt = await forum.wait_bot_message(lambda m: bool(m.buttons))
    assert prompt.thread_id == topic
    assert prompt in forum.topic_messages(topic)
    await anya.tap(prompt, "Трефы")
    await forum.wait_until(prompt, lambda m: "Аня" in m.content)
    assert prompt.thread_id == topic


async def test_non_command_group_chatter_is_hidden_by_privacy_mode(
    app: AnyApplication, driver: Driver
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await anya.send(group, "всем привет")
    await anya.send(group, "/demo@some_other_bot")
    await driver.settle()
    updates = [u for call in driver.world.calls_of("getUpdates") for u in call.result]
    texts = [u["message"].get("text") for u in updates if "message" in u]
    assert "всем привет" not in texts and "/demo@some_other_bot" not in texts
    assert group.bot_messages == []
