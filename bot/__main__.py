"""``python -m bot``: the real bot with ``BOT_TOKEN`` set, otherwise the local sandbox.

Environment: ``BOT_TOKEN`` (real Telegram), ``REDIS_URL`` (else an embedded Redis keeps its data in
``KOZEL_DATA_DIR``, default ``./data``), ``BOT_DELAY`` (seconds a bot player waits before each move,
default 1), ``SANDBOX_HOST`` / ``SANDBOX_PORT`` (default 127.0.0.1:8080), ``SANDBOX_RATE_LIMITS=0`` to let
the emulator ignore Telegram's flood limits.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os

from bot.app import build_application
from bot.handlers.services import Settings
from bot.sandbox.server import serve_sandbox
from bot.sandbox.world import EmulatorConfig


def main() -> None:
    """Run the bot against Telegram, or against the emulator when no token is configured."""
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
    # httpx logs every request at INFO, which in polling mode is noise.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    settings = Settings(bot_delay=float(os.environ.get("BOT_DELAY", "1")))
    factory = functools.partial(
        build_application,
        settings=settings,
        redis_url=os.environ.get("REDIS_URL") or None,
        data_dir=os.environ.get("KOZEL_DATA_DIR", "data"),
    )
    token = os.environ.get("BOT_TOKEN", "").strip()
    if token:
        factory(token).run_polling()
        return
    host = os.environ.get("SANDBOX_HOST", "127.0.0.1")
    port = int(os.environ.get("SANDBOX_PORT", "8080"))
    config = EmulatorConfig(rate_limits=os.environ.get("SANDBOX_RATE_LIMITS", "1") != "0")
    asyncio.run(serve_sandbox(factory, host=host, port=port, config=config))


if __name__ == "__main__":
    main()
