"""The live table over real HTTP: a person's session, state, live events and taps, a watcher, and
forged or stale requests — against the running bot (emulator, real Redis)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from typing import Any

import aiohttp
from aiohttp.test_utils import TestServer

from bot.app import build_application
from bot.render.i18n import Tr
from bot.sandbox import Driver
from bot.sandbox.driver import AnyApplication
from bot.storage import ChatSettings, RedisStorage
from bot.table.links import TableLink
from bot.table.payloads import Hint
from bot.tg.services import Services, Settings
from bot.webapp.server import LiveTable
from bot.webhook import webhook_app
from tests.bot.helpers import start_game, table_of
from tests.webapp.pages import Page, init_data, link_of


async def test_a_person_plays_a_card_on_the_page_and_every_page_follows(
    driver: Driver, app: AnyApplication, svc: Services, live: tuple[LiveTable, str]
) -> None:
    table_app, base = live
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Стол", [anya, boris])
    await start_game(driver, group, [anya])
    param = table_app.tokens.start_param(await link_of(svc, group))
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


async def test_a_card_of_an_older_state_of_the_page_plays_nothing(
    driver: Driver, app: AnyApplication, svc: Services, live: tuple[LiveTable, str]
) -> None:
    """The page's buttons carry the count of moves they were drawn at, as the DM's: one drawn for an
    earlier decision (a page that had not caught up) is refused in the DM's words, and nothing is
    played; the page's button for this decision plays."""
    table_app, base = live
    anya = driver.add_user("Аня")
    group = driver.add_group("Стол", [anya])
    await start_game(driver, group, [anya])
    param = table_app.tokens.start_param(await link_of(svc, group))
    async with aiohttp.ClientSession() as http:
        page = Page(http, base)
        await page.open(init_data(app.bot.token, anya.id, "Аня", param))
        state = await page.next_state(lambda s: s["hand"] is not None and s["hand"]["your_turn"], 30)
        card = next(c for c in state["hand"]["cards"] if c["legal"])
        button = svc.codec.unpack(card["data"])
        assert button.moves is not None
        older = svc.codec.pack(dataclasses.replace(button, moves=button.moves - 1 if button.moves else 1))
        before = await table_of(svc, group)
        refused = await page.act(older)
        assert refused == {"ok": False, "text": Tr("ru")("alert.stale_move")}
        after = await table_of(svc, group)
        assert before is not None and after is not None and after.match == before.match
        assert (await page.act(card["data"])) == {"ok": True}
        played = await table_of(svc, group)
        assert played is not None and played.match is not None and played.match.current is not None
        assert {"seat": 0, "play": card["code"]} in played.match.current["moves"]
        await page.close()


async def test_forged_expired_and_other_table_requests_are_refused(
    driver: Driver, app: AnyApplication, svc: Services, live: tuple[LiveTable, str]
) -> None:
    table_app, base = live
    anya = driver.add_user("Аня")
    group = driver.add_group("Стол", [anya])
    await start_game(driver, group, [anya])
    link = await link_of(svc, group)
    param = table_app.tokens.start_param(link)
    async with aiohttp.ClientSession() as http:
        forged = init_data("1:" + "x" * 35, anya.id, "Аня", param)
        async with http.post(f"{base}/webapp/api/session", json={"init_data": forged}) as r:
            assert r.status == 401
            assert (await r.json())["text"] == Tr("ru")("webapp.open_in_telegram")
        wrong_link = init_data(app.bot.token, anya.id, "Аня", param[:-1] + ("A" if param[-1] != "A" else "B"))
        async with http.post(f"{base}/webapp/api/session", json={"init_data": wrong_link}) as r:
            assert r.status == 403
        async with http.get(f"{base}/webapp/api/state", params={"token": "nonsense.token"}) as r:
            assert r.status == 401
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


async def test_a_hint_asked_on_the_page_is_said_on_the_page(
    driver: Driver, app: AnyApplication, svc: Services, live: tuple[LiveTable, str]
) -> None:
    table_app, base = live
    anya = driver.add_user("Аня")
    group = driver.add_group("Стол", [anya])
    await svc.storage.save_chat_settings(group.id, ChatSettings(hints=True))
    await start_game(driver, group, [anya])
    param = table_app.tokens.start_param(await link_of(svc, group))
    async with aiohttp.ClientSession() as http:
        page = Page(http, base)
        await page.open(init_data(app.bot.token, anya.id, "Аня", param))
        state = await page.next_state(lambda s: s["hand"] is not None and s["hand"]["your_turn"], 30)
        hints = [
            b["data"]
            for row in state["hand"]["buttons"]
            for b in row
            if b.get("data") and isinstance(svc.codec.read(b["data"])[1], Hint)
        ]
        assert len(hints) == 1
        said = await page.act(hints[0])
        assert said["ok"] is True and said["text"]
        await page.close()


async def test_the_webhook_server_serves_the_live_table_when_webapp_url_is_set(
    storage: RedisStorage,
) -> None:
    token = "123456:" + "x" * 35
    on = build_application(
        token, storage=storage, settings=Settings(webapp_url="https://example.org/webapp/")
    )
    off = build_application(token, storage=storage, settings=Settings())
    for application, status in ((on, 200), (off, 404)):
        server = TestServer(webhook_app(application, "secret"))
        await server.start_server()
        try:
            async with aiohttp.ClientSession() as http, http.get(server.make_url("/webapp/")) as r:
                assert r.status == status
        finally:
            await server.close()


async def _first_state(http: aiohttp.ClientSession, url: str, headers: dict[str, str], wait: float) -> Any:
    """The first ``state`` event of a stream opened with ``headers`` (None if none came in ``wait`` s)."""
    async with http.get(url, headers=headers) as r:
        event = ""
        try:
            async with asyncio.timeout(wait):
                async for raw in r.content:
                    line = raw.decode().rstrip("\n")
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: ") and event == "state":
                        return json.loads(line[6:])
        except TimeoutError:
            return None
    return None


async def test_a_stream_reopened_by_the_browser_resumes_from_its_last_event_id(
    driver: Driver, app: AnyApplication, svc: Services, live: tuple[LiveTable, str]
) -> None:
    """EventSource reconnects by itself after a dropped connection, to the URL it was opened with
    (its ``version`` long past) and the last event's id in ``Last-Event-ID``: the page gets no version
    it has, and the latest at once if it missed some."""
    table_app, base = live
    anya = driver.add_user("Аня")
    group = driver.add_group("Стол", [anya])
    await start_game(driver, group, [anya])
    token = table_app.tokens.issue(anya.id, await link_of(svc, group), now=time.time())
    async with aiohttp.ClientSession() as http:
        for _ in range(100):  # her turn: the table waits for her (the bot players have moved)
            async with http.get(f"{base}/webapp/api/state", params={"token": token}) as r:
                state = await r.json()
            if state.get("hand") and state["hand"]["your_turn"]:
                break
            await asyncio.sleep(0.1)
        now = state["version"]
        url = f"{base}/webapp/api/events?token={token}&version=0"
        for _ in range(10):  # the version it has is not sent again (a save meanwhile, a message id kept, is)
            newer = await _first_state(http, url, {"Last-Event-ID": str(now)}, 1.0)
            if newer is None:
                break
            assert newer["version"] > now
            now = newer["version"]
        else:
            raise AssertionError("the table never stood still")
        caught_up = await _first_state(http, url, {"Last-Event-ID": str(now - 1)}, 5.0)
        assert caught_up is not None and caught_up["version"] >= now
        fresh = await _first_state(http, url, {}, 5.0)  # ``version=0``: the whole state
        assert fresh is not None and fresh["version"] >= now
