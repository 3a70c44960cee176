"""A bot that starts while its Redis is down (restarting, a cluster's master failing over) waits for
it and starts, rather than exit with a traceback."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import socket
import subprocess
from pathlib import Path

import pytest

from bot.app import build_application, services_of
from bot.sandbox import Emulator, running_bot
from bot.sandbox.driver import AnyApplication
from bot.storage import RedisStorage, redis_server_binary
from bot.tg.services import Settings


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("thinking", ["threads", "redis"])
async def test_a_bot_starting_while_redis_is_down_waits_for_it_and_starts(
    emulator: Emulator, settings: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture, thinking: str
) -> None:
    """``redis``: its bot players think in worker processes, whose jobs' stream the bot makes first
    (a bot restarted while a cluster's master failed over once exited there, in the soak)."""
    settings = dataclasses.replace(settings, thinking=thinking)
    binary = redis_server_binary()
    assert binary is not None
    port = _free_port()
    store = RedisStorage.from_url(f"redis://127.0.0.1:{port}/0", prefix="start:")
    servers: list[subprocess.Popen[bytes]] = []

    async def up_later() -> None:
        # Once the bot has said it waits, past the client's own retries (about 1.5 s); at most
        # 30 s (a bot that never says so fails the assertions below).
        for _ in range(600):
            if "storage unavailable at start" in caplog.text:
                break
            await asyncio.sleep(0.05)
        servers.append(
            subprocess.Popen(
                [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path), "--save", ""],
                stdout=subprocess.DEVNULL,
            )
        )

    def factory(token: str, **kwargs: object) -> AnyApplication:
        return build_application(token, storage=store, settings=settings, rate_limiter=False, **kwargs)  # type: ignore[arg-type]

    starting = asyncio.create_task(up_later())
    try:
        with caplog.at_level(logging.WARNING):
            async with running_bot(factory, emulator) as application:
                assert servers, "the bot started before its Redis did"
                assert await services_of(application).storage.user_settings(1) is not None
        first = "the thinking workers' stream" if thinking == "redis" else "resuming the games"
        assert f"storage unavailable at start ({first})" in caplog.text
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    finally:
        await starting
        await store.close()
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
