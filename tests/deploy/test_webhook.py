"""Webhook mode: updates POSTed with the secret token reach the application; /healthz answers."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from telegram import Update
from telegram.ext import Application, CommandHandler, ContextTypes

from bot.sandbox import Emulator, EmulatorConfig
from bot.webhook import SECRET_HEADER, serve_webhook, stop_webhook

SECRET = "s3cret-token_1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def _hello(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_chat is not None
    await context.bot.send_message(update.effective_chat.id, "hello from the webhook")


@pytest.fixture
async def served() -> AsyncIterator[tuple[Emulator, int, Any]]:
    async with Emulator(EmulatorConfig()) as emulator:
        application = Application.builder().token(emulator.token).base_url(emulator.base_url).build()
        application.add_handler(CommandHandler("start", _hello))
        port = _free_port()
        runner = await serve_webhook(
            application, url="https://kozel.example.org/tg", secret=SECRET, listen="127.0.0.1", port=port
        )
        try:
            yield emulator, port, application
        finally:
            await stop_webhook(application, runner)


def _start_update(emulator: Emulator, update_id: int) -> dict[str, Any]:
    user = emulator.world.add_user("Аня")
    emulator.world.start_bot(user.id)
    return {
        "update_id": update_id,
        "message": {
            "message_id": 1,
            "date": 1_700_000_000,
            "text": "/start",
            "chat": {"id": user.id, "type": "private", "first_name": "Аня"},
            "from": {"id": user.id, "is_bot": False, "first_name": "Аня"},
            "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
        },
    }


async def test_webhook_update_with_secret_reaches_the_bot(served: tuple[Emulator, int, Any]) -> None:
    emulator, port, _ = served
    sent = [c for c in emulator.world.calls if c.method == "setWebhook"]
    assert sent and sent[-1].params.get("secret_token") == SECRET
    update = _start_update(emulator, 1)
    async with aiohttp.ClientSession() as http:
        url = f"http://127.0.0.1:{port}/tg"
        async with http.post(url, json=update, headers={SECRET_HEADER: SECRET}) as r:
            assert r.status == 200
            # Answered only once handled: a process killed mid-update never said 200, so Telegram
            # delivers it again.
            assert any(c.method == "sendMessage" and c.ok for c in emulator.world.calls)


async def test_webhook_refuses_a_wrong_secret_and_bad_bodies(served: tuple[Emulator, int, Any]) -> None:
    emulator, port, _ = served
    update = _start_update(emulator, 2)
    async with aiohttp.ClientSession() as http:
        url = f"http://127.0.0.1:{port}/tg"
        for headers in ({}, {SECRET_HEADER: "guess"}):
            async with http.post(url, json=update, headers=headers) as r:
                assert r.status == 403
        async with http.post(url, data=b"{not json", headers={SECRET_HEADER: SECRET}) as r:
            assert r.status == 400
        async with http.get(f"http://127.0.0.1:{port}/healthz") as r:
            assert r.status == 200
    await asyncio.sleep(0.1)
    assert not any(c.method == "sendMessage" for c in emulator.world.calls)
