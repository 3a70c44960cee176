"""Webhook mode: an aiohttp server that takes Telegram's POSTs (checking the secret token) and
serves ``/healthz``; it feeds the same ``Application`` that polling would.

python-telegram-bot's own ``run_webhook`` has no health endpoint, so we follow its documented custom
webhook pattern and ``initialize``/``start`` the application ourselves. Each update is handled before
its POST is answered (``process_update``, not the update queue): Telegram delivers again what was not
answered with 200, so a process killed while handling an update loses nothing — the next delivery
finds the dead process's claim expired and handles it (``Storage.claim_update``). Several processes can
sit behind one webhook URL: table state lives in Redis and every move is one compare-and-set, so an
update delivered to two of them is applied once; the one that finds it claimed by the other answers 503
(:func:`~bot.tg.left_to_others`), so it is delivered again rather than lost should the other die.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from bot.app import live_table_of
from bot.tg import left_to_others

AnyApplication = Application[Any, Any, Any, Any, Any, Any]
_LOG = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def webhook_app(
    application: AnyApplication,
    secret: str,
    path: str = "/telegram",
    health: Callable[[], Awaitable[bool]] | None = None,
) -> web.Application:
    """The aiohttp app: ``POST path`` for updates, ``GET /healthz`` for the orchestrator.

    An update left to another process holding its claim (:func:`~bot.tg.left_to_others`) is
    answered 503, for Telegram to deliver it again later."""

    async def receive(request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), secret.encode()):
            _LOG.warning("webhook call with a wrong or missing secret token from %s", request.remote)
            return web.Response(status=403, text="forbidden")
        try:
            data = await request.json()
            update = Update.de_json(data, application.bot)
        except Exception:  # a malformed body is the sender's problem, not a crash of ours
            _LOG.warning("webhook call with a body that is not an update")
            return web.Response(status=400, text="not an update")
        await application.process_update(update)
        if left_to_others(application, update.update_id):
            return web.Response(status=503, text="busy", headers={"Retry-After": "1"})
        return web.Response(text="ok")

    async def healthz(_: web.Request) -> web.Response:
        ok = application.running and (health is None or await health())
        return web.Response(status=200 if ok else 503, text="ok" if ok else "unhealthy")

    app = web.Application(client_max_size=1 << 20)
    app.router.add_post(path, receive)
    app.router.add_get("/healthz", healthz)
    live = live_table_of(application)
    if live is not None:  # WEBAPP_URL: the live table on the same server (bot/webapp)
        live.add_routes(app)
    return app


async def serve_webhook(
    application: AnyApplication,
    *,
    url: str,
    secret: str,
    listen: str,
    port: int,
    health: Callable[[], Awaitable[bool]] | None = None,
    register: bool = True,
) -> web.AppRunner:
    """Start ``application`` and the webhook server; ``register`` tells Telegram the URL and secret."""
    path = urlsplit(url).path or "/"
    await application.initialize()
    if register:
        await application.bot.set_webhook(url=url, secret_token=secret, allowed_updates=Update.ALL_TYPES)
    await application.start()
    runner = web.AppRunner(webhook_app(application, secret, path, health))
    await runner.setup()
    await web.TCPSite(runner, listen, port).start()
    _LOG.info("webhook server listening on %s:%s%s", listen, port, path)
    return runner


async def stop_webhook(application: AnyApplication, runner: web.AppRunner) -> None:
    """Stop the server, then the application."""
    await runner.cleanup()
    await application.stop()
    await application.shutdown()
