"""Bot API shapes and behaviours python-telegram-bot depends on, checked over real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import struct
import time
import zlib

import httpx
import pytest
from telegram import Bot, BotCommand, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest, EndPointNotFound, InvalidToken

from bot.sandbox import Driver, Emulator, FakeClock


def png(width: int, height: int) -> bytes:
    """A valid grey PNG of the given size."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


async def raw(emulator: Emulator, method: str, **params: object) -> tuple[int, dict[str, object]]:
    """Call the emulator with httpx as a generic Bot API client (JSON body)."""
    async with httpx.AsyncClient(trust_env=False) as client:
        response = await client.post(f"{emulator.base_url}{emulator.token}/{method}", json=params, timeout=10)
    return response.status_code, response.json()


async def test_get_me_has_is_bot_and_the_capability_flags(emulator: Emulator, bot: Bot) -> None:
    status, body = await raw(emulator, "getMe")
    assert status == 200 and body["ok"] is True
    me = body["result"]
    assert isinstance(me, dict)
    assert me["is_bot"] is True and me["username"] == "kozel_sandbox_bot"
    assert me["can_join_groups"] is True and me["can_read_all_group_messages"] is False
    assert bot.username == "kozel_sandbox_bot" and bot.id == 123456789


async def test_unknown_method_and_wrong_token(emulator: Emulator, bot: Bot) -> None:
    assert await raw(emulator, "sendSticker2") == (
        404,
        {"ok": False, "error_code": 404, "description": "Not Found"},
    )
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendSticker2")
    with pytest.raises(InvalidToken):
        await Bot("1:wrong", base_url=emulator.base_url).get_me()


async def test_dates_are_unix_seconds_and_callbacks_carry_chat_instance(
    emulator: Emulator, bot: Bot, driver: Driver, clock: FakeClock
) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Ок", callback_data="ok")]])
    sent = await bot.send_message(anya.id, "Готовы?", reply_markup=markup)
    assert sent.date.timestamp() == int(clock.time())
    await anya.tap(anya.dm.message(sent.message_id), wait_answer=False)
    _, body = await raw(emulator, "getUpdates", offset=0, timeout=0)
    updates = body["result"]
    assert isinstance(updates, list)
    callback = updates[-1]["callback_query"]
    assert callback["chat_instance"] and callback["from"]["is_bot"] is False
    assert isinstance(updates[0]["message"]["date"], int) and updates[0]["message"]["date"] < 10**10
    parsed = Update.de_json(updates[-1], bot)
    assert parsed.callback_query is not None and parsed.callback_query.data == "ok"
    assert parsed.callback_query.message is not None
    assert parsed.callback_query.message.message_id == sent.message_id


async def test_get_updates_long_polls_and_confirms_by_offset(
    emulator: Emulator, bot: Bot, driver: Driver
) -> None:
    boris = driver.add_user("Борис")

    async def start_later() -> None:
        await asyncio.sleep(0.3)
        await boris.start()

    started = time.monotonic()
    task = asyncio.create_task(start_later())
    updates = await bot.get_updates(timeout=5)
    await task
    assert 0.2 < time.monotonic() - started < 3
    assert [u.message.text for u in updates if u.message] == ["/start"]
    started = time.monotonic()
    assert await bot.get_updates(offset=updates[-1].update_id + 1, timeout=1) == ()
    assert time.monotonic() - started >= 0.9
    assert emulator.world.pending_updates == 0


async def test_a_second_get_updates_conflicts_with_the_first(emulator: Emulator) -> None:
    first = asyncio.create_task(raw(emulator, "getUpdates", timeout=5))
    await asyncio.sleep(0.2)
    second = asyncio.create_task(raw(emulator, "getUpdates", timeout=0))
    status, body = await first
    assert status == 409 and "terminated by other getUpdates request" in str(body["description"])
    assert (await second)[0] == 200


async def test_photo_upload_is_stored_and_downloadable(emulator: Emulator, bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    image = png(40, 30)
    sent = await bot.send_photo(group.id, image, caption="<i>Стол</i>", parse_mode="HTML")
    assert (sent.photo[-1].width, sent.photo[-1].height) == (40, 30)
    assert sent.caption == "Стол" and sent.caption_entities[0].type == "italic"
    stored = group.message(sent.message_id)
    assert emulator.world.files[stored.photo_file_id or ""].data == image
    file = await bot.get_file(sent.photo[-1].file_id)
    assert bytes(await file.download_as_bytearray()) == image
    again = await bot.send_photo(group.id, sent.photo[-1].file_id)  # re-sending by file_id
    assert again.photo[-1].file_id == sent.photo[-1].file_id
    with pytest.raises(BadRequest, match=r"(?i)image_process_failed"):
        await bot.send_photo(group.id, b"not an image")


async def test_html_is_parsed_into_entities_and_bad_html_refused(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    sent = await bot.send_message(
        anya.id,
        '<b>Козыри</b>: ♣ <a href="https://t.me/kozel_sandbox_bot?start=x">ссылка</a>',
        parse_mode="HTML",
    )
    assert sent.text == "Козыри: ♣ ссылка"
    assert [(e.type, e.offset, e.length) for e in sent.entities] == [("bold", 0, 6), ("text_link", 10, 6)]
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(anya.id, "<blink>нет</blink>", parse_mode="HTML")
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(anya.id, "<b>не закрыт", parse_mode="HTML")


async def test_members_admins_and_deleting(bot: Bot, driver: Driver) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris], admins=[boris])
    assert (await bot.get_chat_member(group.id, anya.id)).status == "creator"
    assert (await bot.get_chat_member(group.id, boris.id)).status == "administrator"
    assert (await bot.get_chat_member(group.id, bot.id)).status == "member"
    assert [m.user.first_name for m in await bot.get_chat_administrators(group.id)] == ["Аня", "Борис"]
    chat = await bot.get_chat(group.id)
    assert chat.title == "Козлятник" and chat.type == "supergroup"

    own = await bot.send_message(group.id, "Стол собран")
    users = await anya.send(group, "привет")
    with pytest.raises(BadRequest, match=r"(?i)message can't be deleted"):
        await bot.delete_message(group.id, users.message_id)
    assert await bot.delete_message(group.id, own.message_id)
    assert group.message(own.message_id).deleted
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await bot.edit_message_text("поздно", group.id, own.message_id)
    group.set_bot_status("administrator")
    assert await bot.delete_message(group.id, users.message_id)


async def test_commands_chat_actions_and_the_call_log(bot: Bot, driver: Driver) -> None:
    await bot.set_my_commands([BotCommand("newgame", "Новая игра"), BotCommand("stop", "Остановить")])
    assert [c.command for c in await bot.get_my_commands()] == ["newgame", "stop"]
    with pytest.raises(BadRequest, match=r"(?i)bot_command_invalid"):
        await bot.set_my_commands([BotCommand("NewGame", "заглавные нельзя")])
    anya = driver.add_user("Аня")
    await anya.start()
    assert await bot.send_chat_action(anya.id, "typing")
    log = driver.calls("setMyCommands")
    assert [call.ok for call in log] == [True, False]
    assert log[1].description == "Bad Request: BOT_COMMAND_INVALID"
    assert driver.calls("sendChatAction")[0].chat_id == anya.id


async def test_callback_answer_url_deep_link_is_followed(bot: Bot, driver: Driver) -> None:
    gleb = driver.add_user("Глеб")
    group = driver.add_group("Стол", [gleb])
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Мои карты", callback_data="hand")]])
    sent = await bot.send_message(group.id, "Раздача", reply_markup=markup)

    async def answer_with_link() -> None:
        updates = await bot.get_updates(timeout=5)
        query = updates[-1].callback_query
        assert query is not None
        await query.answer(url="https://t.me/kozel_sandbox_bot?start=hand_7")

    answering = asyncio.create_task(answer_with_link())
    result = await gleb.tap(group.message(sent.message_id), "Мои карты", follow_url=True)
    await answering
    assert result.answer_url == "https://t.me/kozel_sandbox_bot?start=hand_7"
    assert gleb.record.started_bot and gleb.dm.messages[-1].text == "/start hand_7"


async def test_bot_outside_a_group_is_forbidden(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Без бота", [anya], bot_status=None)
    with pytest.raises(Exception, match="bot is not a member of the supergroup chat"):
        await bot.send_message(group.id, "привет")
