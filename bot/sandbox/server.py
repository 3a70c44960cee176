"""Running the bot in the sandbox: emulator, sandbox page and the application, in one process."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from telegram.ext import Application

from bot.app import LIVE_HUB
from bot.polling import Poller
from bot.sandbox.emulator import Emulator
from bot.sandbox.records import EmulatorConfig
from bot.sandbox.web import SandboxPage, Scene, build_scene
from bot.webapp.server import LiveTable

AnyApplication = Application[Any, Any, Any, Any, Any, Any]
Factory = Callable[..., AnyApplication]
_LOG = logging.getLogger(__name__)


@dataclass
class SandboxServer:
    """A running sandbox: the emulator with its page, the scene, and the bot polling it."""

    emulator: Emulator
    scene: Scene
    application: AnyApplication
    poller: Poller

    @property
    def url(self) -> str:
        """Address of the sandbox page."""
        return f"{self.emulator.url}/"

    async def stop(self) -> None:
        """Stop the bot first (it polls the emulator), then the emulator."""
        application = self.application
        await self.poller.close()
        if application.running:
            await application.stop()
        await application.shutdown()
        await self.emulator.stop()


async def start_sandbox(
    factory: Factory,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    config: EmulatorConfig | None = None,
    poll_timeout: float = 10.0,
) -> SandboxServer:
    """Start the emulator and page on ``host:port`` and the application built by ``factory`` against it."""
    emulator = Emulator(config or EmulatorConfig(rate_limits=True))
    scene = build_scene(emulator.world)
    SandboxPage(emulator, scene)
    # The live table is served from the sandbox's own address (its routes must exist before the
    # server starts; they find the bot's services once the application below has built them).
    built: list[AnyApplication] = []
    live = LiveTable(
        lambda: built[0].bot_data.get("svc") if built else None,
        emulator.token,
        lambda: built[0].bot_data.get(LIVE_HUB) if built else None,
    )
    live.add_routes(emulator.app)
    await emulator.start(host, port)
    application = factory(emulator.token, base_url=emulator.base_url, base_file_url=emulator.base_file_url)
    built.append(application)
    try:
        await application.initialize()
        await application.start()
        poller = Poller(application, timeout=max(1, round(poll_timeout)))
        poller.start()
    except BaseException:
        await emulator.stop()
        raise
    return SandboxServer(emulator=emulator, scene=scene, application=application, poller=poller)


async def serve_sandbox(
    factory: Factory, *, host: str, port: int, config: EmulatorConfig | None = None
) -> None:
    """Run the sandbox until SIGINT or SIGTERM, printing its URL."""
    server = await start_sandbox(factory, host=host, port=port, config=config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(f"Sandbox (no BOT_TOKEN set): open {server.url} — Ctrl-C stops it.", flush=True)
    try:
        await stop.wait()
    finally:
        print("Stopping the sandbox…", flush=True)
        await server.stop()
