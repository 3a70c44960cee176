"""The live table over real HTTP: a person's session, state, live events and taps, a watcher, and
forged or stale requests — against the running bot (emulator, real Redis)."""

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

from bot.handlers.services import Services
from bot.sandbox import Driver
from bot.sandbox.driver import AnyApplication
from bot.webapp.initdata import sign_init_data
from bot.webapp.live import LiveHub
from bot.webapp.server import LiveTable
from bot.webapp.session import TableLink
from tests.bot.helpers import start_game, table_of


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
    svc.tables.renderers.append(hub)
    table = LiveTable(lambda: svc, app.bot.token, lambda: hub)
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


async def test_a_person_plays_a_card_on_the_page_and_every_page_follows(
    driver: Driver, app: AnyApplication, svc: Services, live: tuple[LiveTable, str]
) -> None:
    table_app, base = live
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Стол", [anya, boris])
    await start_game(driver, group, [anya])
    stored = await table_of(svc, group)
    assert stored is not None
    param = table_app.tokens.start_param(TableLink(group.id, None, stored.table_id))
    async with aiohttp.ClientSession() as http:
        mine, watcher = Page(http, base), Page(http, base)
        body = await mine.open(init_data(app.bot.token, anya.id, "Аня", param))
        assert body["lang"] == "ru" and body["texts"]["your_turn"]
        await watcher.open(init_data(app.bot.token, boris.id, "Борис", param))
        state = await mine.next_state(lambda s: s["hand"] is not None and s["hand"]["your_turn"], 30)
        seen = await watcher.next_state()
        assert seen["hand"] is None and seen["seat"] is None
        legal = [c["code"] for c in state["hand"]["cards"] if c["legal"]]
        data = {b["card"]: b["data"] for row in state["hand"]["buttons"] for b in row if "card" in b}
        assert legal
        if legal:
            tapped = time.monotonic()
            assert (await mine.act(data[legal[0]])) == {"ok": True}
            after = await mine.next_state(lambda s: s["version"] > state["version"])
            assert legal[0] not in [c["code"] for c in after["hand"]["cards"]]
            watched = await watcher.next_state(lambda s: s["version"] >= after["version"])
            assert time.monotonic() - tapped < 5
            assert watched["hand"] is None
            # The same button again: refused in the DM's words, nothing applied.
            again = await mine.act(data[legal[0]])
            assert again["ok"] is False and again["text"]
        # A watcher's tap on a seated person's button is refused: the user comes from initData.
        refused = await watcher.act(next(iter(data.values())))
        assert refused["ok"] is False and refused["text"]
        await mine.close()
        await watcher.close()


async def test_forged_expired_and_other_table_requests_are_refused(
    driver: Driver, app: AnyApplication, svc: Services, live: tuple[LiveTable, str]
) -> None:
    table_app, base = live
    anya = driver.add_user("Аня")
    group = driver.add_group("Стол", [anya])
    await start_game(driver, group, [anya])
    stored = await table_of(svc, group)
    assert stored is not None
    param = table_app.tokens.start_param(TableLink(group.id, None, stored.table_id))
    async with aiohttp.ClientSession() as http:
        forged = init_data("1:" + "x" * 35, anya.id, "Аня", param)
        async with http.post(f"{base}/webapp/api/session", json={"init_data": forged}) as r:
            assert r.status == 401
        wrong_link = init_data(app.bot.token, anya.id, "Аня", param[:-1] + ("A" if param[-1] != "A" else "B"))
        async with http.post(f"{base}/webapp/api/session", json={"init_data": wrong_link}) as r:
            assert r.status == 403
        async with http.get(f"{base}/webapp/api/state", params={"token": "nonsense.token"}) as r:
            assert r.status == 401
        link = TableLink(group.id, None, stored.table_id)
        old = table_app.tokens.issue(anya.id, link, now=time.time() - 7200)
        async with http.get(f"{base}/webapp/api/state", params={"token": old}) as r:
            assert r.status == 401
        other = table_app.tokens.issue(anya.id, TableLink(group.id, None, "abcdef"), now=time.time())
        async with http.get(f"{base}/webapp/api/state", params={"token": other}) as r:
            assert r.status == 404
        async with http.post(f"{base}/webapp/api/act", data=b"\xff\xfe") as r:
            assert r.status == 400
        async with http.get(f"{base}/webapp/") as r:
            assert r.status == 200 and "app.js" in await r.text()
        async with http.get(f"{base}/webapp/static/../../etc/passwd") as r:
            assert r.status == 404
