"""A local Telegram Bot API server over the emulated :class:`~bot.sandbox.world.World`.

Serves ``/bot<token>/<method>`` and ``/file/bot<token>/<path>`` on 127.0.0.1, so the unchanged
python-telegram-bot ``Application`` talks to it through ``base_url`` / ``base_file_url``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from types import TracebackType
from typing import Any

from aiohttp import web

from bot.sandbox.clock import Clock
from bot.sandbox.records import ApiError, EmulatorConfig, LateAnswer, Params
from bot.sandbox.world import World

_LOG = logging.getLogger(__name__)
_CONFLICT = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
)


def _json_response(body: Any, status: int = 200) -> web.Response:
    return web.Response(
        body=json.dumps(body, ensure_ascii=False).encode("utf-8"),
        status=status,
        content_type="application/json",
    )


async def read_params(request: web.Request) -> Params:
    """Collect Bot API parameters from the query string and a form, multipart or JSON body."""
    raw: dict[str, Any] = dict(request.query)
    files: dict[str, tuple[str | None, str | None, bytes]] = {}
    if request.can_read_body:
        if request.content_type == "application/json":
            try:
                body = await request.json()
            except ValueError:
                raise ApiError(400, "Bad Request: can't parse JSON") from None
            if isinstance(body, dict):
                raw.update(body)
        elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for name, value in form.items():
                if isinstance(value, web.FileField):
                    files[name] = (value.filename, value.content_type, value.file.read())
                else:
                    raw[name] = value
    return Params(raw, files)


class Emulator:
    """The emulated Telegram: a :class:`World` plus the HTTP server that exposes its Bot API."""

    def __init__(
        self,
        config: EmulatorConfig | None = None,
        *,
        clock: Clock | None = None,
        world: World | None = None,
    ) -> None:
        self.world = world or World(config, clock=clock)
        self.app = web.Application(client_max_size=64 * 1024 * 1024)
        self.app.router.add_route("*", "/bot{token}/{method}", self._handle_api)
        self.app.router.add_get("/file/bot{token}/{path:.+}", self._handle_file)
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._host = "127.0.0.1"
        self._closing = False

    # ----- lifecycle ---------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Listen on ``host:port`` (port 0 picks a free one)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
        self._host, self._port = host, sock.getsockname()[1]
        # Long polls are woken on close, so a short grace period is enough.
        self._runner = web.AppRunner(self.app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        await web.SockSite(self._runner, sock).start()
        _LOG.debug("Telegram emulator listening on %s", self.url)

    async def stop(self) -> None:
        """Stop serving and release any long-polling request."""
        self._closing = True
        self.world.wake_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Emulator:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # ----- addresses ---------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the server listens on."""
        if self._port is None:
            raise RuntimeError("the emulator is not started")
        return self._port

    @property
    def url(self) -> str:
        """The server's root URL."""
        return f"http://{self._host}:{self.port}"

    @property
    def base_url(self) -> str:
        """Value for python-telegram-bot's ``base_url`` (the token is appended by PTB)."""
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        """Value for python-telegram-bot's ``base_file_url``."""
        return f"{self.url}/file/bot"

    @property
    def token(self) -> str:
        """The bot token the emulator accepts."""
        return self.world.config.token

    # ----- handlers ----------------------------------------------------------------------------

    async def _handle_api(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _json_response({"ok": False, "error_code": 401, "description": "Unauthorized"}, 401)
        method = request.match_info["method"]
        try:
            params = await read_params(request)
            if method.lower() == "getupdates":
                result: Any = await self._get_updates(params)
            else:
                result = self.world.call(method, params)
        except ApiError as error:
            return _json_response(error.to_json(), error.code)
        except LateAnswer as late:
            # Applied, but answered too late: the client has usually timed out by now.
            await asyncio.sleep(late.delay)
            result = late.result
        return _json_response({"ok": True, "result": result})

    async def _get_updates(self, params: Params) -> list[dict[str, Any]]:
        generation = self.world.new_poll_generation()
        timeout = min(max(params.number("timeout", 0.0), 0.0), self.world.config.max_long_poll)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if self.world.poll_superseded(generation):
                raise ApiError(409, _CONFLICT)
            result = self.world.get_updates(params)
            remaining = deadline - loop.time()
            if result or remaining <= 0 or self._closing:
                break
            await self.world.wait_change(remaining)
        self.world.log_get_updates(params, result)
        return result

    async def _handle_file(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _json_response({"ok": False, "error_code": 401, "description": "Unauthorized"}, 401)
        stored = self.world.file_by_path(request.match_info["path"])
        if stored is None:
            return _json_response({"ok": False, "error_code": 404, "description": "Not Found"}, 404)
        return web.Response(body=stored.data, content_type=stored.mime_type or "application/octet-stream")
