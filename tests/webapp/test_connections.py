"""One instance holds 1,000 open pages of the live table (Server-Sent Events over loopback) and still
brings every one of them a move made on one of them, within seconds."""

from __future__ import annotations

import asyncio
import resource
import time

import aiohttp

from bot.sandbox import Driver
from bot.sandbox.driver import AnyApplication
from bot.table.links import TableLink
from bot.tg.services import Services
from bot.webapp.server import LiveTable
from tests.bot.helpers import start_game, table_of

PAGES = 1000
#: Pages opening at once (beyond the server's listen backlog, a connection would wait to be retried).
OPENING = 100


def _more_files(needed: int) -> None:
    """Raise this process's open-file limit to at least ``needed`` (every page is two sockets here)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard))


async def test_one_instance_holds_1000_open_pages_and_updates_every_one(
    driver: Driver, app: AnyApplication, svc: Services, live: tuple[LiveTable, str]
) -> None:
    _more_files(2 * PAGES + 1024)
    table_app, base = live
    anya = driver.add_user("Аня")
    group = driver.add_group("Стол", [anya])
    await start_game(driver, group, [anya])
    stored = await table_of(svc, group)
    assert stored is not None
    link = TableLink(group.id, None, stored.table_id)
    now = time.time()
    # Аня at her seat, and 999 people watching (each a user of their own, as each phone would be).
    people = [anya.id, *(5_000_000 + i for i in range(1, PAGES))]
    tokens = [table_app.tokens.issue(user, link, now=now) for user in people]
    latest = [-1] * PAGES
    opened = [asyncio.Event() for _ in range(PAGES)]
    gate = asyncio.Semaphore(OPENING)

    async def follow(i: int, http: aiohttp.ClientSession) -> None:
        async with gate:
            r = await http.get(f"{base}/webapp/api/events", params={"token": tokens[i]})
        async with r:
            assert r.status == 200
            async for raw in r.content:
                if raw.startswith(b"id: "):
                    latest[i] = int(raw[4:])
                    opened[i].set()

    started = time.monotonic()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        readers = [asyncio.create_task(follow(i, http)) for i in range(PAGES)]
        try:
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in opened)), 30)
            assert table_app._live().open_pages == PAGES
            # Аня's turn: the table waits for her, and every page shows the same version (a few
            # looks: the per-user limit counts hers).
            for _ in range(20):
                await asyncio.sleep(0.5)
                if min(latest) != max(latest):
                    continue
                async with http.get(f"{base}/webapp/api/state", params={"token": tokens[0]}) as r:
                    state = await r.json()
                if state["hand"]["your_turn"] and min(latest) == max(latest) == state["version"]:
                    break
            else:
                raise AssertionError("the pages never stood still on Аня's turn")
            before = state["version"]
            card = next(c for c in state["hand"]["cards"] if c["legal"])
            tapped = time.monotonic()
            tap = {"token": tokens[0], "data": card["data"]}
            async with http.post(f"{base}/webapp/api/act", json=tap) as r:
                assert (await r.json())["ok"] is True
            while min(latest) <= before:
                assert time.monotonic() - tapped < 15, sum(1 for v in latest if v <= before)
                await asyncio.sleep(0.02)
            reached = time.monotonic() - tapped
        finally:
            for task in readers:
                task.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
    print(f"{PAGES} pages open in {tapped - started:.1f} s; a move reached all of them in {reached:.2f} s")
