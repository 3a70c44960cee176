"""``python -m bot``: the bot, configured from the environment (see README "Running in production").

No ``BOT_TOKEN``: the local sandbox (the emulator and its page on ``SANDBOX_HOST:SANDBOX_PORT``,
default 127.0.0.1:8080; ``SANDBOX_RATE_LIMITS=0`` lets it ignore flood limits). ``BOT_TOKEN`` alone:
long polling. ``BOT_TOKEN`` with ``WEBHOOK_URL`` and ``WEBHOOK_SECRET``: webhook mode with ``/healthz``.
A missing or malformed setting stops the bot at once with a message naming it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import shutil
import signal
import sys
from dataclasses import replace
from pathlib import Path

from aiohttp import web

from bot.app import AnyApplication, build_application, live_table_of
from bot.config import Config, ConfigError, load_config
from bot.healthcheck import HEARTBEAT
from bot.logs import setup_logging
from bot.polling import serve_polling
from bot.runtime import tune_gc
from bot.sandbox.miniapp import SANDBOX_WEBAPP_URL
from bot.sandbox.records import EmulatorConfig
from bot.sandbox.server import serve_sandbox
from bot.tg.services import Settings
from bot.webhook import serve_webhook, stop_webhook

_LOG = logging.getLogger("bot")


def main() -> int:
    """Run the bot in the configured mode; returns the exit status."""
    try:
        config = load_config()
    except ConfigError as e:
        print(e, file=sys.stderr)
        return 2
    setup_logging(config.log_level, config.log_format)
    settings = Settings(
        bot_delay=config.bot_delay,
        default_language=config.default_language,
        update_lease=config.update_lease,
        thinking=config.bot_thinking,
        bot_workers=config.bot_workers,
        webapp_url=config.webapp_url,
        webapp_name=config.webapp_name,
    )
    factory = functools.partial(
        build_application,
        settings=settings,
        redis_url=config.redis_url,
        data_dir=str(config.data_dir),
        heartbeat=config.data_dir / HEARTBEAT,
        base_url=config.bot_api_base_url,
    )
    _LOG.info("starting in %s mode", config.mode)
    if config.mode == "sandbox":
        if config.redis_url is None:
            # The emulated Telegram starts empty every run; tables kept from an earlier run would
            # point at chats and messages that no longer exist, so the sandbox's store starts empty too.
            forget_sandbox_store(config.data_dir)
        host = os.environ.get("SANDBOX_HOST", "127.0.0.1")
        port = int(os.environ.get("SANDBOX_PORT", "8080"))
        emulator = EmulatorConfig(rate_limits=os.environ.get("SANDBOX_RATE_LIMITS", "1") != "0")
        # The live table (Mini App) opens inside the sandbox page, signed by the sandbox's own token.
        sandbox_factory = functools.partial(
            factory, base_url=None, settings=replace(settings, webapp_url=SANDBOX_WEBAPP_URL)
        )
        tune_gc()
        asyncio.run(serve_sandbox(sandbox_factory, host=host, port=port, config=emulator))
        return 0
    assert config.bot_token is not None
    application = factory(config.bot_token.get_secret_value())
    tune_gc()
    if config.mode == "polling":
        # Our poller, not run_polling: it confirms an update only once handled (bot/polling.py).
        asyncio.run(_run_polling(application, config))
        return 0
    asyncio.run(_run_webhook(application, config))
    return 0


def forget_sandbox_store(data_dir: Path) -> None:
    """Remove the embedded Redis's saved data in ``data_dir`` (append-only files and snapshots)."""
    for name in ("appendonly.aof", "dump.rdb"):
        (data_dir / name).unlink(missing_ok=True)
    shutil.rmtree(data_dir / "appendonlydir", ignore_errors=True)


async def _run_polling(application: AnyApplication, config: Config) -> None:
    """Poll until SIGINT or SIGTERM; with ``WEBAPP_URL``, serve the live table on ``WEBAPP_PORT``."""
    live = live_table_of(application)
    runner: web.AppRunner | None = None
    if live is not None:
        app = web.Application(client_max_size=1 << 16)
        live.add_routes(app)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, config.webhook_listen, config.webapp_port).start()
        _LOG.info("live table served on %s:%s", config.webhook_listen, config.webapp_port)
    try:
        await serve_polling(application)
    finally:
        if runner is not None:
            await runner.cleanup()


async def _run_webhook(application: AnyApplication, config: Config) -> None:
    """Serve the webhook until SIGINT or SIGTERM."""
    assert config.webhook_url is not None and config.webhook_secret is not None
    runner = await serve_webhook(
        application,
        url=config.webhook_url,
        secret=config.webhook_secret.get_secret_value(),
        listen=config.webhook_listen,
        port=config.webhook_port,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await stop_webhook(application, runner)


if __name__ == "__main__":
    sys.exit(main())
