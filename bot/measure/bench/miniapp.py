"""The bench's Mini App mode: every seated person plays on the live table's page.

Each page is what a phone's would be: a session from Telegram-signed ``initData`` (signed here with
the bot's token), a Server-Sent Events connection over loopback to the bot's own aiohttp server, and
taps posted to ``api/act``. ``watchers`` more pages a table watch without a hand. Measured from here:

* tap → every open page of the table updated: from just before a tap is posted until the last of
  the table's pages has received a version that has the move (the tapper's page tells which version
  that is: the first after the tap whose table differs from the one tapped on);
* the bot process's memory per open connection: its RSS grown while the pages opened and received
  their first state, over their number.

The tables are seated first, then every page opens, then every table starts, so the memory figure
is the pages' alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from bot.measure.bench.figures import ms
from bot.measure.bench.players import CardTaps, Seated, Seating, finished, match_over, seat, start
from bot.render.hand_view import LEGAL_MARK
from bot.sandbox import Driver
from bot.storage import RedisStorage
from bot.table.codec import Codec
from bot.table.links import TableLink, Tokens
from bot.webapp.initdata import sign_init_data

#: Pages opening at once (a burst of sessions would only queue in the bot).
OPENING = 50
#: User ids of the people watching (not seated, and not anyone the emulator made).
WATCHER_IDS = 7_000_000_000


@dataclass(frozen=True)
class Pages:
    """The Mini App mode: ``watchers`` more pages a table, of people watching."""

    watchers: int = 0


def _signature(state: dict[str, Any]) -> str:
    """What a move changes on every page: the deal's phase, whose turn, the trick, the brag's cards."""
    deal = state.get("deal") or {}
    keys = ("no", "phase", "to_act", "trick", "tricks", "brag")
    return json.dumps([state.get("status"), *(deal.get(k) for k in keys)], sort_keys=True)


@dataclass
class Page:
    """One open page: its session, its event stream, and when each version reached it."""

    http: aiohttp.ClientSession
    base: str
    user_id: int
    #: Set whenever a state arrives (the table's players wait on it).
    changed: asyncio.Event
    seated: bool = True
    token: str = ""
    latest: dict[str, Any] | None = None
    acted_on: int = -1
    #: (perf_counter, version, signature) of every state received; a watcher's without signature.
    receipts: list[tuple[float, int, str]] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    first: asyncio.Event = field(default_factory=asyncio.Event)

    async def open(self, init_data: str) -> None:
        """Trade ``init_data`` for a session and follow the table's events."""
        for _ in range(20):
            async with self.http.post(f"{self.base}/webapp/api/session", json={"init_data": init_data}) as r:
                if r.status == 429:  # the per-user limit: wait as a page would
                    await asyncio.sleep(1.0)
                    continue
                r.raise_for_status()
                self.token = (await r.json())["token"]
                break
        self.task = asyncio.create_task(self._follow())

    async def _follow(self) -> None:
        url = f"{self.base}/webapp/api/events"
        async with self.http.get(url, params={"token": self.token}) as r:
            r.raise_for_status()
            version = -1
            async for raw in r.content:
                line = raw.decode()
                if line.startswith("id: "):
                    version = int(line[4:])
                elif line.startswith("data: ") and version >= 0:
                    if self.seated:  # a watcher's state is not read: only when it came
                        self.latest = json.loads(line[6:])
                        self.receipts.append((time.perf_counter(), version, _signature(self.latest)))
                    else:
                        self.receipts.append((time.perf_counter(), version, ""))
                    version = -1
                    self.first.set()
                    self.changed.set()

    async def act(self, data: str) -> dict[str, Any]:
        """A tap on the page (again after a second if the per-user limit says so)."""
        for _ in range(20):
            async with self.http.post(
                f"{self.base}/webapp/api/act", json={"token": self.token, "data": data}
            ) as r:
                if r.status == 429:
                    await asyncio.sleep(1.0)
                    continue
                answer: dict[str, Any] = await r.json()
                return answer
        return {"ok": False}

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()


@dataclass
class Tap:
    """A move made on a page: the table's pages, which one tapped, when, and on which state."""

    pages: list[Page]
    tapper: Page
    at: float
    version: int
    signature: str


@dataclass
class LiveBench:
    """The pages of every table, and the moves made on them (the cards played also in ``cards``)."""

    http: aiohttp.ClientSession
    base: str
    bot_token: str
    codec: Codec
    cards: CardTaps
    taps: list[Tap] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)

    async def open_pages(self, table: Seated, n: int, watchers: int, gate: asyncio.Semaphore) -> list[Page]:
        """The pages of table ``n``: its people's, then ``watchers`` more, each once it has its first
        state."""
        data = str(table.lobby.buttons[0][0]["callback_data"])
        button, _ = self.codec.read(data)
        param = Tokens(self.bot_token).start_param(
            TableLink(button.chat_id, button.thread_id, button.table_id)
        )
        changed = asyncio.Event()
        people = [(u.id, u.name, True) for u in table.users]
        lookers = [(WATCHER_IDS + n * 1000 + i, f"W{n}-{i}", False) for i in range(watchers)]
        pages = []
        for user_id, name, seated in [*people, *lookers]:
            page = Page(self.http, self.base, user_id, changed, seated=seated)
            user = json.dumps({"id": user_id, "first_name": name, "language_code": "ru"}, ensure_ascii=False)
            fields = {"auth_date": str(int(time.time())), "user": user, "start_param": param}
            async with gate:
                await page.open(sign_init_data(self.bot_token, fields))
                await asyncio.wait_for(page.first.wait(), 120)
            pages.append(page)
        self.pages += pages
        return pages

    async def play(
        self, table: Seated, pages: list[Page], deals: int, rng: random.Random, pace: float = 0.0
    ) -> None:
        """The people play on their pages until ``deals`` are over (or the match), each thinking
        ``pace`` seconds (0.5 to 1.5 times it) before a tap."""
        people = [p for p in pages if p.seated]
        changed = people[0].changed
        while not any(_over(p.latest, deals) for p in people):
            changed.clear()
            acted = False
            for page in people:
                state = page.latest
                hand = state and state.get("hand")
                if not state or not hand or not hand["your_turn"] or page.acted_on == state["version"]:
                    continue
                choice = _choice(hand, rng)
                if choice is None:
                    continue
                data, move = choice
                page.acted_on = state["version"]
                if pace:
                    await asyncio.sleep(pace * rng.uniform(0.5, 1.5))
                at, wall = time.perf_counter(), time.time()
                answer = await page.act(data)
                acted = True
                if answer.get("ok") and move:
                    self.taps.append(Tap(pages, page, at, state["version"], _signature(state)))
                    self.cards.note(data, (state.get("deal") or {}).get("no"), wall)
            if not acted:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), 1.0)
        # The deal's summary reaches the group (at its pace) before the calls are counted.
        for _ in range(600):
            if finished(table) >= deals or match_over(table):
                break
            await asyncio.sleep(0.1)

    async def close(self) -> None:
        for page in self.pages:
            await page.close()


def _over(state: dict[str, Any] | None, deals: int) -> bool:
    if state is None:
        return False
    deal = state.get("deal") or {}
    return bool(state["status"] == "over" or deal.get("no", 0) > deals)


def _choice(hand: dict[str, Any], rng: random.Random) -> tuple[str, bool] | None:
    """What a person taps on the page, and whether it is a move (not a tick of a card to give):
    a card marked to play, a choice's confirm, a card to tick, or another decision (never the hint)."""
    cards = [c["data"] for c in hand["cards"] if c.get("kind") == "act"]
    if cards:
        return rng.choice(cards), True
    decisions = [b for row in hand["buttons"] for b in row if "card" not in b and b.get("data")]
    confirm = [b["data"] for b in decisions if b["text"].startswith(LEGAL_MARK)]
    if confirm:
        return rng.choice(confirm), True
    picks = [c["data"] for c in hand["cards"] if c.get("kind") == "pick"]
    if picks:
        return rng.choice(picks), False
    others = [b["data"] for b in decisions if not b["text"].startswith("💡")]
    return (rng.choice(others), True) if others else None


def tap_latencies(taps: list[Tap]) -> list[float]:
    """Seconds from each move's tap until every open page of its table had a version with it."""
    out = []
    for tap in taps:
        made = next(
            (
                v
                for t, v, sig in tap.tapper.receipts
                if t >= tap.at and v > tap.version and sig != tap.signature
            ),
            None,
        )
        if made is None:
            continue
        reached = [next((t for t, v, _ in p.receipts if t >= tap.at and v >= made), None) for p in tap.pages]
        if all(t is not None for t in reached):
            out.append(max(t for t in reached if t is not None) - tap.at)
    return out


async def play_all(
    driver: Driver, live: LiveBench, tables: int, preset: str, deals: int, rng: random.Random,
    pages: Pages, rss: Callable[[], int], seating: Seating | None = None, store: RedisStorage | None = None,
    pace: float = 0.0,
) -> tuple[list[Seated], dict[str, Any]]:  # fmt: skip
    """Seat every table, open every page (the bot's memory before and after), start and play (each
    person thinking ``pace`` seconds, 0.5 to 1.5 times it, before a tap); the seated tables and the
    figures of the pages."""
    sitting = seating or Seating()
    seated = await asyncio.gather(*(seat(driver, n, preset, sitting, store) for n in range(tables)))
    await driver.settle(quiet=1.0, timeout=120)
    before = rss()
    gate = asyncio.Semaphore(OPENING)
    opened = await asyncio.gather(
        *(live.open_pages(t, n, pages.watchers, gate) for n, t in enumerate(seated))
    )
    await asyncio.sleep(1.0)
    after = rss()
    connections = sum(len(p) for p in opened)
    seeds = [random.Random(rng.getrandbits(64)) for _ in seated]

    async def one(table: Seated, its: list[Page], table_rng: random.Random) -> None:
        await start(driver, table, sitting)
        await live.play(table, its, deals, table_rng, pace)

    await asyncio.gather(*(one(t, p, r) for t, p, r in zip(seated, opened, seeds, strict=True)))
    latencies = tap_latencies(live.taps)
    still_open = sum(1 for p in live.pages if p.task is not None and not p.task.done())
    figures = {
        "open_connections": connections,
        "pages_per_table": round(connections / max(1, len(seated)), 1),
        "connections_open_at_the_end": still_open,
        "bot_rss_mb_before_pages": round(before / 2**20, 1),
        "bot_rss_mb_with_pages": round(after / 2**20, 1),
        "bot_rss_kb_per_connection": round((after - before) / 1024 / max(1, connections), 1),
        "page_moves": len(live.taps),
        "tap_to_every_page_ms_median": ms(latencies, 0.5),
        "tap_to_every_page_ms_p95": ms(latencies, 0.95),
        "tap_to_every_page_ms_max": round(1000 * max(latencies), 1) if latencies else None,
    }
    return list(seated), figures
