"""The HTTP client the bot talks to the Bot API with: aiohttp behind python-telegram-bot's request API.

python-telegram-bot's default, ``HTTPXRequest``, costs about 1.5 ms of CPU per call on this project's
machines (httpcore checks every pooled connection, with a system call each, on every request, and
queued requests make that quadratic); with a hundred tables the bot makes a few hundred calls a
second, and that work sat on the same event loop as every tap. aiohttp (already a dependency: the
sandbox and the webhook server run on it) does the same call for about a quarter of that.

Behaviour matches ``HTTPXRequest`` where the bot relies on it: multipart for uploads, proxies from
the environment, ``TimedOut`` for a timeout (the request may have been applied), ``NetworkError``
for any other transport failure, and a bounded connection pool that queues rather than fails. Other
parameters go as a JSON body rather than a form: the Bot API takes a JSON object whose values are
the strings a form would carry, and url-quoting a keyboard's JSON (Cyrillic labels, each byte
escaped) cost more CPU than the rest of the call. aiohttp has no write timeout: a slow upload is
bounded by the read timeout.
"""

from __future__ import annotations

import json
import ssl
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import certifi
from telegram._utils.defaultvalue import DefaultValue  # the type of BaseRequest.DEFAULT_NONE
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData


class AiohttpRequest(BaseRequest):
    """A :class:`telegram.request.BaseRequest` on one ``aiohttp.ClientSession``.

    ``connection_pool_size`` connections at most (further requests wait for one, up to
    ``pool_timeout`` seconds); the timeouts are the defaults of calls that pass none.
    """

    def __init__(
        self,
        *,
        connection_pool_size: int = 64,
        read_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_read_timeout: float | None = 20.0,
    ) -> None:
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_read_timeout = media_read_timeout
        self._session: aiohttp.ClientSession | None = None
        #: The proxy of each (scheme, host) from the environment, looked up once (aiohttp's own
        #: ``trust_env`` looks it up on every request, in a thread).
        self._proxies: dict[tuple[str, str], str | None] = {}

    @property
    def read_timeout(self) -> float | None:
        """The read timeout of calls that set none (python-telegram-bot adds a long poll's to it)."""
        return self._read_timeout

    async def initialize(self) -> None:
        """Open the session (in the running event loop)."""
        if self._session is None or self._session.closed:
            context = ssl.create_default_context(cafile=certifi.where())
            connector = aiohttp.TCPConnector(limit=self._pool_size, limit_per_host=0, ssl=context)
            self._session = aiohttp.ClientSession(connector=connector)

    async def shutdown(self) -> None:
        """Close the session and its connections."""
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """Make the call; returns the HTTP status and the body (python-telegram-bot reads both)."""
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data is not None else None
        fields = request_data.json_parameters if request_data is not None else None
        data: Any = None
        headers = {"User-Agent": self.USER_AGENT}
        if fields and not files:
            data = json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode()
            headers["Content-Type"] = "application/json"
        elif files:
            form = aiohttp.FormData()
            for name, value in (fields or {}).items():
                form.add_field(name, value)
            for name, (filename, content, mime) in files.items():
                form.add_field(name, content, filename=filename, content_type=mime)
            data = form
        read = self._pick(read_timeout, self._media_read_timeout if files else self._read_timeout)
        connect = self._pick(connect_timeout, self._connect_timeout)
        pool = self._pick(pool_timeout, self._pool_timeout)
        timeout = aiohttp.ClientTimeout(
            total=None,
            # aiohttp's "connect" covers the wait for a pooled connection and the connecting itself.
            connect=None if connect is None or pool is None else connect + pool,
            sock_connect=connect,
            sock_read=read,
        )
        try:
            async with session.request(
                method,
                url,
                data=data,
                timeout=timeout,
                headers=headers,
                proxy=self._proxy(url),
            ) as response:
                return response.status, await response.read()
        except TimeoutError as e:  # asyncio.TimeoutError is TimeoutError since 3.11
            raise TimedOut from e
        except aiohttp.ClientError as e:
            raise NetworkError(f"aiohttp.{type(e).__name__}: {e}") from e

    def _proxy(self, url: str) -> str | None:
        """The proxy for ``url`` (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``; ``NO_PROXY`` exempts)."""
        parts = urlsplit(url)
        key = (parts.scheme, parts.hostname or "")
        if key not in self._proxies:
            proxies = urllib.request.getproxies()
            proxy = proxies.get(parts.scheme) or proxies.get("all")
            if proxy is not None and parts.hostname and urllib.request.proxy_bypass(parts.hostname):
                proxy = None
            self._proxies[key] = proxy
        return self._proxies[key]

    @staticmethod
    def _pick(given: ODVInput[float], default: float | None) -> float | None:
        return default if isinstance(given, DefaultValue) else given
