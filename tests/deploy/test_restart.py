"""SIGKILL the bot in the lobby, mid-trick, mid-brag and mid-exchange: a new process carries on.

The emulator runs in the test process; the bot is a real ``python -m bot`` subprocess in polling mode
(``BOT_TOKEN``, ``BOT_API_BASE_URL`` and ``REDIS_URL`` point it at the emulator and at a Redis
database of its own). People are simulated through the emulator's Driver. After every kill the new
process must find the stored table exactly as it was, the old DM hands and table message must keep
working, no message may be sent twice, every stored state must pass the invariants (the storage
refuses and logs any that does not), and nothing may be logged as an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import secrets
import signal
import sys
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis.asyncio as aioredis

from bot.app import codec_for
from bot.engine import Phase, Rules
from bot.render.hand_view import as_a_person_picks
from bot.sandbox import Driver, Emulator, EmulatorConfig, SimGroup, SimUser, StoredMessage
from bot.storage import RedisStorage, Seat, Table
from bot.storage.invariants import table_problems
from bot.table import game
from bot.table.codec import Codec
from bot.table.payloads import BadData
from tests.bot.helpers import NAMES

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------------- the bot process


@dataclass
class Bot:
    """``python -m bot`` against the emulator; each start writes its log to a file of its own."""

    emulator: Emulator
    redis_url: str
    logs: Path
    process: asyncio.subprocess.Process | None = None
    starts: int = 0

    async def start(self) -> None:
        """Start a process and wait until it polls (after resuming the stored tables)."""
        env = {k: v for k, v in os.environ.items() if k not in ("WEBHOOK_URL", "WEBHOOK_SECRET")}
        env.update(
            BOT_TOKEN=self.emulator.token,
            BOT_API_BASE_URL=self.emulator.base_url,
            REDIS_URL=self.redis_url,
            BOT_DELAY="0",
            LOG_FORMAT="json",
            LOG_LEVEL="INFO",
            DATA_DIR=str(self.logs),
            PYTHONUNBUFFERED="1",
        )
        self.starts += 1
        log = (self.logs / f"bot-{self.starts}.log").open("wb")
        polls = len(self.emulator.world.calls_of("getUpdates"))
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=ROOT, env=env, stdout=log, stderr=asyncio.subprocess.STDOUT
        )
        log.close()
        driver = Driver(self.emulator.world, default_timeout=30.0)
        await driver.wait_for(
            lambda: len(self.emulator.world.calls_of("getUpdates")) > polls or None, what="the bot to poll"
        )

    async def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when a machine dies."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()
        self.process = None

    def errors(self) -> list[str]:
        """Every log line at ERROR or above, and anything that is not a JSON log line, of every start."""
        bad = []
        for path in sorted(self.logs.glob("bot-*.log")):
            for line in path.read_text(errors="replace").splitlines():
                try:
                    level = json.loads(line)["level"]
                except (ValueError, KeyError, TypeError):
                    bad.append(f"{path.name}: {line}")
                    continue
                if level in ("ERROR", "CRITICAL"):
                    bad.append(f"{path.name}: {line}")
        return bad


def _db_url(url: str, db: int) -> str:
    parts = urlsplit(url)
    assert parts.scheme in ("redis", "rediss"), f"these tests pick a Redis database by number, not in {url}"
    return urlunsplit(parts._replace(path=f"/{db}"))


@pytest.fixture
async def private_redis(redis_url: str) -> AsyncIterator[str]:
    """A Redis database no other test uses (``python -m bot`` has no key prefix), emptied after."""
    for db in random.sample(range(1, 16), 15):
        url = _db_url(redis_url, db)
        client = aioredis.Redis.from_url(url)
        marker = "kozel-restart-test-lock"
        if not await client.set(marker, 1, nx=True, ex=600):
            await client.aclose()
            continue
        if [k async for k in client.scan_iter(match="kozel:*", count=100)]:
            await client.delete(marker)
            await client.aclose()
            continue
        try:
            yield url
        finally:
            keys = [k async for k in client.scan_iter(match="kozel:*", count=500)]
            if keys:
                await client.delete(*keys)
            await client.delete(marker)
            await client.aclose()
        return
    pytest.fail("no free Redis database (1-15) for the restart tests")


@dataclass
class World:
    """What a scenario needs: the bot, the people, the group, the stored table and a seeded choice."""

    bot: Bot
    driver: Driver
    store: RedisStorage
    codec: Codec
    users: list[SimUser]
    group: SimGroup
    rng: random.Random
    #: Each person's last tap: the hand message they tapped and its edits before the tap.
    tapped: dict[int, tuple[StoredMessage, int]] = field(default_factory=dict)

    async def table(self) -> Table:
        table = await self.store.load_table(self.group.id, None)
        assert table is not None
        return table

    async def restart(self) -> None:
        """Kill the bot once everything is quiet; start a new one; the stored table must not move."""
        # Quiet for longer than a private chat's pace (1 s): a hand sent anew when a decision came
        # due may be waiting its turn, and a process killed before it leaves the next to send it.
        await self.driver.settle(quiet=1.5, timeout=30)
        before = await self.table()
        messages = {u.id: _latest(u) for u in self.users} if before.status == "playing" else {}
        await self.bot.kill()
        await self.bot.start()
        await self.driver.settle(quiet=0.5, timeout=30)
        after = await self.table()
        assert after.model_dump() == before.model_dump(), "the stored table changed across the restart"
        assert not table_problems(after, deep=True)
        if after.status == "playing":
            # The DM hands are the same messages, still offering the same decision.
            for user in self.users:
                assert _latest(user).message_id == messages[user.id].message_id

    async def play(
        self, until: Callable[[Table], bool], *, max_taps: int = 200, seconds: float = 240
    ) -> Table:
        """Tap random legal decisions of the seat the stored deal waits for until ``until(stored table)``.

        A keyboard older than the game (its edit is on the way) gets an alert; the player then waits
        a little for that message to be edited, as a person would.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        taps = 0
        while taps < max_taps and loop.time() < deadline:
            table = await self.table()
            if until(table):
                return table
            deal = game.deal_of(table)
            to_act = [self.users[deal.to_act]] if deal is not None and deal.to_act is not None else []
            for user in to_act:
                await self._seen_own_tap(user)
            options = [(u, m, data) for u in to_act for m, data in _decisions(self.codec, u)]
            if not options:
                await self.driver.world.wait_change(0.2)
                continue
            user, message, data = self.rng.choice(options)
            self.tapped[user.id] = (message, message.edits)
            await user.tap(message, data=data, timeout=15)
            taps += 1
        table = await self.table()
        deal = game.deal_of(table)
        state = f"{table.status}, deal {deal.deal_no} in {deal.phase.value}" if deal else table.status
        dms = "\n".join(f"{u.name}: {_latest(u).content[-300:]}" for u in self.users)
        raise AssertionError(f"not reached in {taps} taps; the table is {state}\n{dms}")

    async def _seen_own_tap(self, user: SimUser) -> None:
        """Before their next tap a person waits to see their last one on the keyboard (the DM's edits
        are paced, about one a second) rather than tap the old keyboard again: until the hand they
        tapped is edited or a newer hand has come. A stale keyboard is edited soon; an alert on a
        current one (a third card ticked for a give of two) is not, and they tap something else.
        Nobody waits for the edit of someone else's tap: that tap's person does, before theirs."""
        tapped = self.tapped.pop(user.id, None)
        if tapped is None:
            return
        message, edits = tapped
        with contextlib.suppress(TimeoutError):
            await self.driver.wait_for(
                lambda: message.edits != edits or _latest(user).message_id != message.message_id or None,
                timeout=3,
                what="the keyboard to be brought up to date",
            )


def _latest(user: SimUser) -> StoredMessage:
    """The user's hand: the newest DM message of a deal (reminders and notices are not hands)."""
    hands = [m for m in user.dm.bot_messages if "раздача №" in m.content]
    assert hands, f"{user.name} has no hand in the DM"
    return hands[-1]


def _decisions(codec: Codec, user: SimUser) -> list[tuple[StoredMessage, str]]:
    """The decision buttons of the user's hand, if it asks them to act (a card ticked for the give too)."""
    hands = [m for m in user.dm.bot_messages if "раздача №" in m.content]
    if not hands or "👉" not in hands[-1].content:
        return []
    found = []
    for row in hands[-1].buttons:
        for b in row:
            data = b.get("callback_data")
            if data is None:
                continue
            try:
                payload = codec.unpack(data).payload
            except BadData:
                continue
            if payload.startswith("A") or payload[:1] == "C" != payload:
                found.append((b.get("text", ""), data, payload))
    return [(hands[-1], data) for _, data in as_a_person_picks(found)]


@pytest.fixture
async def world(private_redis: str, tmp_path: Path) -> AsyncIterator[World]:
    """The emulator, four people who started the bot, their group, and a running bot process."""
    async with Emulator(EmulatorConfig()) as emulator:
        bot = Bot(emulator, private_redis, tmp_path)
        store = RedisStorage.from_url(private_redis)
        driver = Driver(emulator.world, default_timeout=20.0)
        users = [driver.add_user(name) for name in NAMES]
        group = driver.add_group("Козлятник", users)
        await bot.start()
        try:
            for user in users:
                await user.start()
                await user.dm.wait_bot_message()
            yield World(bot, driver, store, codec_for(emulator.token), users, group, random.Random(7))
        finally:
            if bot.process is not None:
                await bot.kill()
            await store.close()
        assert not bot.errors(), "\n".join(bot.errors())


# ----------------------------------------------------------------------------------- checks


def _deal_no(table: Table) -> int:
    current = table.match.current if table.match else None
    return int(current.get("deal_no", 1)) if current else 0


def _no_message_twice(w: World, table: Table, *, lobby: bool = True) -> None:
    """One table message per deal in the group, one hand per deal in each DM, one lobby message.

    Each deal's table message and hands are edited in place, so a message sent again after a restart
    would show up as a second message of the same deal. After a restart every message is edited once
    to the stored state; Telegram answers "not modified" where it already showed it, and nothing
    else may have been refused.
    """
    assert table.match is not None
    records = [*table.match.deals, *([table.match.current] if table.match.current else [])]
    dealt = Counter(int(r.get("deal_no", 1)) for r in records)
    shown = Counter(
        int(found.group(1))
        for m in w.group.bot_messages
        if (found := re.search(r"Раздача №(\d+)", m.content))
    )
    assert shown and all(shown[n] <= dealt[n] for n in shown), (shown, dealt, w.group.transcript())
    others = [m for m in w.group.bot_messages if not re.search(r"Раздача №\d+", m.content)]
    assert len(others) == (1 if lobby else 0), (
        "the lobby and the deals, nothing else:\n" + w.group.transcript()
    )
    for user in w.users:
        hands = Counter(
            int(found.group(1))
            for m in user.dm.bot_messages
            if (found := re.search(r"раздача №(\d+)", m.content))
        )
        assert all(hands[n] <= dealt[n] for n in hands), (user.name, hands, dealt, user.dm.transcript())
    refused = [
        f"{c.method}: {c.description}"
        for c in w.driver.world.calls
        if not c.ok and c.method != "getUpdates" and "not modified" not in (c.description or "")
    ]
    assert not refused, refused


def _stored_states_sound(table: Table) -> None:
    problems = table_problems(table, deep=True)
    assert not problems, problems


# ----------------------------------------------------------------------------------- scenarios


async def test_killed_in_the_lobby_mid_trick_and_mid_brag_the_game_goes_on(world: World) -> None:
    w = world
    users, group = w.users, w.group
    await users[0].send(group, "/newgame")
    lobby = await group.wait_bot_message(
        lambda m: any("🪑" in b.get("text", "") for r in m.buttons for b in r)
    )
    for seat in (0, 1):
        await users[seat].tap(lobby, f"Место {seat + 1}")
    await group.wait_until(lobby, lambda m: users[1].name in m.content)

    # In the lobby: the new process keeps the seats taken and answers the old lobby message.
    await w.restart()
    for seat in (2, 3):
        tap = await users[seat].tap(lobby, f"Место {seat + 1}")
        assert not tap.show_alert, tap.answer_text
    await group.wait_until(lobby, lambda m: users[3].name in m.content)
    await users[0].tap(lobby, "Начать")
    await group.wait_until(lobby, lambda m: "Игра началась" in m.content)

    # Mid-trick: a trick has been taken and the next one holds some cards.
    def mid_trick(t: Table) -> bool:
        deal = game.deal_of(t)
        return deal is not None and len(deal.tricks) >= 1 and 1 <= len(deal.trick) <= 3

    table = await w.play(mid_trick)
    assert _deal_no(table) == 1
    await w.restart()
    # The tap right after the restart lands on a hand message the old process sent.
    before = (await w.table()).version
    await w.play(lambda t: t.version > before)

    # Mid-brag: deal 1 is played out; deal 2 (classic) opens with the brag; a card or two is laid.
    def mid_brag(t: Table) -> bool:
        deal = game.deal_of(t)
        return (
            deal is not None
            and deal.deal_no >= 2
            and deal.phase is Phase.BRAG
            and deal.brag is not None
            and bool(deal.brag.laid)
        )

    table = await w.play(mid_brag)
    assert table.match is not None and len(table.match.deals) >= 1
    await w.restart()
    deals_before = len(table.match.deals)
    table = await w.play(lambda t: t.match is not None and len(t.match.deals) > deals_before)
    # Longer than a group's pace (3.1 s): a deal's summary is sent, then its table message deleted.
    await w.driver.settle(quiet=3.5, timeout=30)
    table = await w.table()
    _stored_states_sound(table)
    _no_message_twice(w, table)
    assert any(m.content.startswith("🏁") for m in group.bot_messages), "the deals' summaries are shown"


def _offers_exchange(message: StoredMessage) -> bool:
    return any("Меняемся" in b.get("text", "") for r in message.buttons for b in r)


def exchange_table(group: SimGroup, users: list[SimUser], rng: random.Random) -> Table:
    """A match played (by random legal decisions) into deal 2 up to the exchange offer."""
    rules = Rules.make("classic")
    while True:
        table = Table(
            table_id=secrets.token_hex(3),
            chat_id=group.id,
            chat_title=group.title,
            creator_id=users[0].id,
            rules=rules.to_json(),
            seats=[Seat(kind="human", name=u.name, user_id=u.id) for u in users],
        )
        game.start_match(table, rng)
        while table.status == "playing":
            deal = game.deal_of(table)
            assert deal is not None and deal.to_act is not None
            if deal.deal_no > 2:
                break
            if deal.phase is Phase.EXCHANGE:
                return table
            game.apply(table, deal.to_act, rng.choice(deal.legal_actions(deal.to_act)), rng)


async def test_killed_mid_exchange_the_exchange_goes_on(world: World) -> None:
    w = world
    # A table stored while the bot is down is shown by the next process: the table and four hands.
    await w.bot.kill()
    table = exchange_table(w.group, w.users, random.Random(11))
    await w.store.save_table(table, ttl=3600)
    await w.bot.start()
    deal = game.deal_of(table)
    assert deal is not None and deal.to_act is not None
    first = w.users[deal.to_act]
    await first.dm.wait_bot_message(_offers_exchange)
    tap = await first.tap(_latest(first), "Меняемся")
    assert not tap.show_alert, tap.answer_text
    table = await w.table()
    deal = game.deal_of(table)
    assert deal is not None and deal.phase is Phase.EXCHANGE and deal.to_act != w.users.index(first)

    await w.restart()
    second = w.users[deal.to_act]
    await w.driver.wait_for(lambda: _offers_exchange(_latest(second)) or None, what="the exchange offer")
    tap = await second.tap(_latest(second), "Меняемся")
    assert not tap.show_alert, tap.answer_text
    table = await w.table()
    deal = game.deal_of(table)
    assert deal is not None and deal.phase is Phase.EXCHANGE_GIVE

    assert table.match is not None
    done = len(table.match.deals)
    table = await w.play(lambda t: t.match is not None and len(t.match.deals) > done)
    moves = table.match.deals[done]["moves"]
    assert [m["exchange"] for m in moves if "exchange" in m] == [True, True]
    assert any("exchange_give" in m for m in moves), "the exchange was made after the restart"
    await w.driver.settle(quiet=3.5, timeout=30)
    table = await w.table()
    _stored_states_sound(table)
    _no_message_twice(w, table, lobby=False)


def test_compose_runs_redis_with_append_only_persistence_on_a_volume() -> None:
    # No YAML parser among the dependencies: the file is small and read as text, service by service.
    text = (ROOT / "docker-compose.yml").read_text()
    redis_service = text.split("\n  redis:\n", 1)[1].split("\n  bot:\n", 1)[0]
    assert '"--appendonly", "yes"' in redis_service
    assert "- redis-data:/data" in redis_service, "the append-only file lives on a named volume"
    assert "\nvolumes:\n  redis-data:" in text
