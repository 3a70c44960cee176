"""Open pages of the live table for tests: a session, its event stream and taps, over real HTTP."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.sandbox import SimGroup
from bot.sandbox.driver import AnyApplication
from bot.table.links import TableLink
from bot.tg.services import Services
from bot.webapp.initdata import sign_init_data
from bot.webapp.live import LiveHub
from bot.webapp.server import LiveTable
from tests.bot.helpers import table_of


class Page:
    """One open page: its session and its event stream."""

    def __init__(self, http: aiohttp.ClientSession, base: str) -> None:
        self.http, self.base = http, base
        self.token = ""
        self.states: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    async def open(self, init_data: str) -> dict[str, Any]:
        async with self.http.post(f"{self.base}/webapp/api/session", json={"init_data": init_data}) as r:
            assert r.status == 200, await r.text()
            body: dict[str, Any] = await r.json()
        self.token = body["token"]
        self.task = asyncio.create_task(self._follow())
        return body

    async def _follow(self) -> None:
        url = f"{self.base}/webapp/api/events"
        async with self.http.get(url, params={"token": self.token}) as r:
            event = ""
            async for raw in r.content:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "state":
                    await self.states.put(json.loads(line[6:]))

    async def next_state(self, check: Any = lambda s: True, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            state = await asyncio.wait_for(self.states.get(), deadline - time.monotonic())
            if check(state):
                return state

    async def act(self, data: str) -> dict[str, Any]:
        body = {"token": self.token, "data": data}
        async with self.http.post(f"{self.base}/webapp/api/act", json=body) as r:
            answer: dict[str, Any] = await r.json()
            return answer

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()


@pytest.fixture
async def live(app: AnyApplication, svc: Services) -> AsyncIterator[tuple[LiveTable, str]]:
    hub = LiveHub(svc.storage.client, svc.storage.prefix)  # type: ignore[attr-defined]
    table = LiveTable(lambda: svc, app.bot.token, lambda: hub)
    table.attach(svc, hub)
    web_app = web.Application()
    table.add_routes(web_app)
    server = TestServer(web_app)
    await server.start_server()
    try:
        yield table, str(server.make_url("")).rstrip("/")
    finally:
        await hub.close()
        await server.close()


def init_data(token: str, user_id: int, name: str, start_param: str) -> str:
    user = json.dumps({"id": user_id, "first_name": name, "language_code": "ru"}, ensure_ascii=False)
    fields = {"auth_date": str(int(time.time())), "user": user, "start_param": start_param}
    return sign_init_data(token, fields)


async def link_of(svc: Services, group: SimGroup) -> TableLink:
    """The link to the table of ``group`` (its thread-less table, which must exist)."""
    stored = await table_of(svc, group)
    assert stored is not None
    return TableLink(group.id, None, stored.table_id)
