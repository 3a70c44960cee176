"""Several bot instances behind webhooks on one emulator and one Redis: the harness of the deploy tests."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

from bot.app import build_application
from bot.sandbox import Emulator, EmulatorConfig
from bot.storage import RedisStorage
from bot.tg.services import Settings
from bot.webhook import serve_webhook, stop_webhook


def free_port() -> int:
    """A TCP port nothing listens on (at the moment of asking)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def webhook_instances(
    redis_url: str, prefix: str, telegram: EmulatorConfig, settings: Settings, secret: str, n: int = 2
) -> AsyncIterator[tuple[Emulator, list[int], list[Any]]]:
    """One emulator (``telegram``), ``n`` bot applications with ``settings`` (each its own Redis client
    on the same keys, ``prefix``) and ``n`` webhooks on free ports; yields the emulator, the ports and
    the applications, and stops them all."""
    async with Emulator(telegram) as emulator:
        apps, ports, runners, stores = [], [], [], []
        try:
            for _ in range(n):
                store = RedisStorage.from_url(redis_url, prefix=prefix)
                stores.append(store)
                application = build_application(
                    emulator.token, base_url=emulator.base_url, base_file_url=emulator.base_file_url,
                    storage=store, settings=settings, rate_limiter=False,
                )  # fmt: skip
                port = free_port()
                runner = await serve_webhook(
                    application,
                    url="https://kozel.example.org/tg",
                    secret=secret,
                    listen="127.0.0.1",
                    port=port,
                )
                apps.append(application)
                ports.append(port)
                runners.append(runner)
            yield emulator, ports, apps
        finally:
            for application, runner in zip(apps, runners, strict=True):
                await stop_webhook(application, runner)
            for store in stores:
                await store.close()
