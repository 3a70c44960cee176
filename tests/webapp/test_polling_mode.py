"""In polling mode (no webhook) the live table is served on a port of its own, ``WEBAPP_PORT``: the bot as
``python -m bot`` runs it (``bot.__main__``), polling the emulator."""

from __future__ import annotations

import asyncio
import contextlib
import socket

import aiohttp

from bot.__main__ import _run_polling
from bot.app import build_application, live_table_of, services_of
from bot.config import load_config
from bot.sandbox import Driver, Emulator, EmulatorConfig
from bot.storage import RedisStorage
from bot.table.core import Limits
from bot.table.links import TableLink
from bot.tg.services import Settings
from tests.bot.helpers import start_game, table_of
from tests.webapp.pages import init_data


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def test_polling_mode_serves_the_live_table_on_its_own_port(storage: RedisStorage) -> None:
    async with Emulator(EmulatorConfig()) as emulator:
        port = _free_port()
        config = load_config(
            bot_token=emulator.token,
            bot_api_base_url=emulator.base_url,
            webapp_url="https://example.org/webapp/",
            webapp_port=port,
            webhook_listen="127.0.0.1",
        )
        assert config.mode == "polling"
        settings = Settings(bot_delay=0.0, limits=Limits.off(), webapp_url=config.webapp_url)
        application = build_application(
            emulator.token, storage=storage, settings=settings, base_url=emulator.base_url,
            base_file_url=emulator.base_file_url, rate_limiter=False,
        )  # fmt: skip
        running = asyncio.create_task(_run_polling(application, config))
        driver = Driver(emulator.world, default_timeout=20.0)
        try:
            await driver.wait_for(lambda: emulator.world.calls_of("getUpdates") or None, what="the bot")
            anya = driver.add_user("Аня")
            group = driver.add_group("Стол", [anya])
            await start_game(driver, group, [anya])
            live, stored = live_table_of(application), await table_of(services_of(application), group)
            assert live is not None and stored is not None
            param = live.tokens.start_param(TableLink(group.id, None, stored.table_id))
            base = f"http://127.0.0.1:{port}"
            async with aiohttp.ClientSession() as http:
                async with http.get(f"{base}/webapp/") as r:
                    assert r.status == 200 and "app.js" in await r.text()
                signed = init_data(emulator.token, anya.id, "Аня", param)
                async with http.post(f"{base}/webapp/api/session", json={"init_data": signed}) as r:
                    assert r.status == 200
                    token = (await r.json())["token"]
                async with http.get(f"{base}/webapp/api/state", params={"token": token}) as r:
                    assert r.status == 200
                    state = await r.json()
                assert state["table_id"] == stored.table_id and state["seat"] == 0 and state["hand"]
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
        # Stopped: the port is free again.
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))
