"""The bot's HTTP client (bot/aiohttp_request.py): calls, uploads, and python-telegram-bot's errors."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from aiohttp import web
from PIL import Image
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, NetworkError, TimedOut

from bot.aiohttp_request import AiohttpRequest
from bot.sandbox import Driver, Emulator

Handler = Callable[[web.Request], Awaitable[web.Response]]


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (3, 2), "red").save(out, format="PNG")
    return out.getvalue()


async def test_calls_and_uploads_reach_the_api(emulator: Emulator, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    async with Bot(emulator.token, base_url=emulator.base_url, request=AiohttpRequest()) as bot:
        sent = await bot.send_message(anya.id, "<b>привет</b>", parse_mode="HTML")
        await bot.edit_message_text("пока", chat_id=anya.id, message_id=sent.message_id)
        photo = _png()
        shown = await bot.send_photo(anya.id, photo, caption="счёт")
        with pytest.raises(BadRequest, match="not modified"):
            await bot.edit_message_text("пока", chat_id=anya.id, message_id=sent.message_id)
    first, second = anya.dm.bot_messages[-2:]
    assert first.content == "пока" and first.edits == 1
    assert second.caption == "счёт" and second.message_id == shown.message_id
    assert second.photo_file_id is not None
    assert driver.world.files[second.photo_file_id].data == photo


@contextlib.asynccontextmanager
async def serving(answer: Handler) -> AsyncIterator[str]:
    """A local server answering every path with ``answer``: its bot API base URL while it runs."""
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/bot"
    finally:
        await runner.cleanup()


@pytest.fixture
async def slow_api() -> AsyncIterator[str]:
    """A server that answers every call after 2 s: the base URL of a bot API that is too slow."""

    async def answer(request: web.Request) -> web.Response:
        await asyncio.sleep(2.0)
        return web.json_response({"ok": True, "result": True})

    async with serving(answer) as url:
        yield url


async def test_a_slow_answer_is_a_timeout(slow_api: str) -> None:
    request = AiohttpRequest(read_timeout=0.2)
    await request.initialize()
    try:
        bot = Bot("1:x", base_url=slow_api, request=request)
        with pytest.raises(TimedOut):
            await bot.send_message(1, "hello")
        # A call's own read timeout wins over the default.
        with pytest.raises(TimedOut):
            await bot.delete_message(1, 1, read_timeout=0.1)
    finally:
        await request.shutdown()


async def test_a_refused_connection_is_a_network_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    request = AiohttpRequest()
    await request.initialize()
    try:
        bot = Bot("1:x", base_url=f"http://127.0.0.1:{port}/bot", request=request)
        with pytest.raises(NetworkError, match="aiohttp") as caught:
            await bot.send_message(1, "hello")
        assert not isinstance(caught.value, TimedOut)
    finally:
        await request.shutdown()


async def test_a_request_that_is_not_initialized_says_so() -> None:
    bot = Bot("1:x", base_url="http://127.0.0.1:9/bot", request=AiohttpRequest())
    with pytest.raises(NetworkError, match="not initialized"):
        await bot.send_message(1, "hello")


def test_the_proxy_comes_from_the_environment_once(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    request = AiohttpRequest()
    assert request._proxy("https://api.telegram.org/bot1:x/getMe") == "http://proxy.example:3128"
    assert request._proxy("http://127.0.0.1:8081/bot1:x/getMe") is None
    # Looked up once per host: a later change of the environment is not read on every call.
    monkeypatch.delenv("HTTPS_PROXY")
    assert request._proxy("https://api.telegram.org/bot1:x/sendMessage") == "http://proxy.example:3128"
    assert AiohttpRequest()._proxy("https://api.telegram.org/bot1:x/getMe") is None


async def test_parameters_go_as_a_json_body_of_form_strings() -> None:
    """A JSON body (not a url-quoted form) whose values are the strings a form would carry."""
    seen: list[tuple[str, dict[str, object]]] = []

    async def answer(request: web.Request) -> web.Response:
        seen.append((request.content_type, json.loads(await request.read())))
        return web.json_response({"ok": True, "result": True})

    request = AiohttpRequest()
    await request.initialize()
    try:
        async with serving(answer) as url:
            bot = Bot("1:x", base_url=url, request=request)
            markup = InlineKeyboardMarkup([[InlineKeyboardButton("♣Д", callback_data="d1")]])
            await bot.edit_message_text("<b>привет</b>", chat_id=7, message_id=3, reply_markup=markup)
    finally:
        await request.shutdown()
    ((content_type, body),) = seen
    assert content_type == "application/json"
    assert body["text"] == "<b>привет</b>" and body["chat_id"] == "7" and body["message_id"] == "3"
    assert isinstance(body["reply_markup"], str)
    assert json.loads(body["reply_markup"]) == {"inline_keyboard": [[{"text": "♣Д", "callback_data": "d1"}]]}
