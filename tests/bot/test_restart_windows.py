"""The restart windows of issue #7: what a process killed at the wrong moment used to lose.

* A tap claimed by a process that died is handled when Telegram delivers it again after the lease.
* A lobby stored by ``/newgame`` whose message never went out is posted at the next start.
* A deal's summary lost with its process is sent at the next start.
* A timer claimed by a process that died is fired by another once the claim's lease ends, and a
  timer that fails while Redis is down costs one warning line, not an unretrieved task exception,
  and fires again within seconds of the fault's end, not after its lease.
* ``DEFAULT_LANGUAGE`` is the language of a group or person who has none.

Time is a :class:`FakeClock` the tests move: no test waits out a lease.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError
from telegram import Update

from bot.app import build_application, services_of
from bot.engine import Rules
from bot.render.i18n import pick_lang, set_default_lang
from bot.sandbox import Driver, Emulator, SimGroup, running_bot
from bot.sandbox.clock import FakeClock
from bot.sandbox.driver import AnyApplication
from bot.storage import RedisStorage, Table
from bot.table.bots import default_level
from bot.table.core import Limits
from bot.table.timers import TimerId
from bot.tg.common import default_preset
from bot.tg.services import Services, Settings
from tests.bot import test_timers
from tests.bot.helpers import hand_of, play_until, sit, start_game, table_of

pytestmark = pytest.mark.cluster  # each test also runs on a real Redis Cluster

LOBBY_MARK = "🪑"


# The fake clock of leases and timers, and the bot's settings on it, as in the timer tests.
clock, settings = test_timers.clock, test_timers.settings


@pytest.fixture
def factory(storage: RedisStorage, settings: Settings) -> Callable[..., AnyApplication]:
    """Builds the bot on the test's Redis keys (each call: a new process, as after a restart)."""

    def build(token: str, **kwargs: Any) -> AnyApplication:
        return build_application(token, storage=storage, settings=settings, rate_limiter=False, **kwargs)

    return build


@pytest.fixture
async def idle_app(
    emulator: Emulator, factory: Callable[..., AnyApplication]
) -> AsyncIterator[AnyApplication]:
    """The bot, started but not polling: the test hands it each update itself."""
    application = factory(emulator.token, base_url=emulator.base_url, base_file_url=emulator.base_file_url)
    await application.initialize()
    await application.start()
    try:
        yield application
    finally:
        await application.stop()
        await application.shutdown()


async def eventually(probe: Callable[[], Any], what: str, timeout: float = 10.0) -> Any:
    """Poll the (possibly async) ``probe`` until it returns something truthy."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = probe()
        if asyncio.iscoroutine(found):
            found = await found
        if found:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def lobby_messages(group: SimGroup) -> list[Any]:
    """The group's messages with a seat button."""
    return [
        m for m in group.bot_messages if any(LOBBY_MARK in b.get("text", "") for r in m.buttons for b in r)
    ]


# ----- 1. a lost tap -----------------------------------------------------------------------------


async def test_an_update_claim_is_a_lease_until_the_update_is_done(storage: RedisStorage) -> None:
    assert await storage.claim_update(7, now=100.0, lease=30.0)
    assert not await storage.claim_update(7, now=129.0, lease=30.0), "another process holds it"
    assert await storage.claim_update(7, now=131.0, lease=30.0), "its lease ended: its process died"
    await storage.finish_update(7)
    assert not await storage.claim_update(7, now=10_000.0, lease=30.0), "done: never handled again"


async def test_a_tap_claimed_by_a_killed_process_is_handled_when_delivered_again(
    idle_app: AnyApplication, emulator: Emulator, driver: Driver, clock: FakeClock
) -> None:
    svc = services_of(idle_app)
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    for earlier in emulator.world.take_updates():  # the bot added to the group, and such
        await idle_app.process_update(Update.de_json(earlier, idle_app.bot))
    await anya.send(group, "/newgame")
    (raw,) = emulator.world.take_updates()
    update = Update.de_json(raw, idle_app.bot)
    assert update is not None and update.message is not None

    async def deliver() -> None:
        await idle_app.process_update(update)
        await svc.outbox.drain()

    # A process took the update and was killed before handling it; the offset was never confirmed.
    assert await svc.storage.claim_update(update.update_id, now=clock.time(), lease=svc.settings.update_lease)
    await deliver()
    assert group.bot_messages == [], "while its lease is live, another process may be on it"
    clock.advance(svc.settings.update_lease + 1)
    await deliver()
    assert len(lobby_messages(group)) == 1, "delivered again after the lease: handled"
    # Handled to the end, it is done: a later delivery does nothing, however late.
    clock.advance(svc.settings.update_lease * 10)
    await deliver()
    assert len(group.bot_messages) == 1, group.transcript()


async def test_an_update_handled_but_not_marked_done_is_not_told_to_try_again(
    idle_app: AnyApplication,
    emulator: Emulator,
    driver: Driver,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    svc = services_of(idle_app)
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    for earlier in emulator.world.take_updates():
        await idle_app.process_update(Update.de_json(earlier, idle_app.bot))
    await anya.send(group, "/newgame")
    (raw,) = emulator.world.take_updates()

    async def down(*args: object, **kwargs: object) -> None:
        raise RedisConnectionError("Connection refused")

    # Redis goes away between the handler and the "done" mark.
    monkeypatch.setattr(svc.storage, "finish_update", down)
    with caplog.at_level(logging.WARNING):
        await idle_app.process_update(Update.de_json(raw, idle_app.bot))
        await svc.outbox.drain()
    assert len(group.bot_messages) == 1 and lobby_messages(group), group.transcript()
    warnings = [
        r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("bot")
    ]
    assert len(warnings) == 1 and "done" in warnings[0], warnings


# ----- 2. a stuck lobby --------------------------------------------------------------------------


def stored_lobby(group: SimGroup, creator_id: int, at: float) -> Table:
    """The table ``/newgame`` stores before it sends the lobby message."""
    return Table(
        table_id="abc123",
        chat_id=group.id,
        chat_title="Козлятник",
        creator_id=creator_id,
        rules=Rules.make(default_preset()).to_json(),
        bot_level=default_level(),
        created_at=at,
        updated_at=at,
    )


async def test_a_lobby_whose_message_was_never_sent_is_posted_at_the_next_start(
    emulator: Emulator, storage: RedisStorage, factory: Callable[..., AnyApplication], clock: FakeClock
) -> None:
    driver = Driver(emulator.world, default_timeout=10.0)
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    # Killed between storing the table and sending its message, a minute ago.
    await storage.save_table(stored_lobby(group, anya.id, clock.time() - 60), ttl=3600)
    async with running_bot(factory, emulator) as application:
        svc = services_of(application)
        message = await group.wait_bot_message(lambda m: m in lobby_messages(group))
        table = await eventually(lambda: _with_lobby_message(svc, group), "the lobby's message id stored")
        assert table.lobby_message_id == message.message_id
        await sit(anya, message, 0, group)  # the posted lobby works
        await svc.driver.idle()
    assert len(lobby_messages(group)) == 1


async def test_a_fresh_lobby_without_message_is_posted_once_its_newgame_lease_is_over(
    emulator: Emulator, storage: RedisStorage, clock: FakeClock
) -> None:
    # A lobby stored just now may still be on its way from a live process: it is posted only after
    # the update's lease (short here: this wait is real time).
    settings = Settings(bot_delay=0.0, limits=Limits.off(), clock=clock.time, update_lease=0.3)

    def factory(token: str, **kwargs: Any) -> AnyApplication:
        return build_application(token, storage=storage, settings=settings, rate_limiter=False, **kwargs)

    driver = Driver(emulator.world, default_timeout=10.0)
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await storage.save_table(stored_lobby(group, anya.id, clock.time()), ttl=3600)
    async with running_bot(factory, emulator) as application:
        assert lobby_messages(group) == [], "not at once"
        await group.wait_bot_message(lambda m: m in lobby_messages(group))
        await services_of(application).driver.idle()
    assert len(lobby_messages(group)) == 1


async def _with_lobby_message(svc: Services, group: SimGroup) -> Table | None:
    table = await table_of(svc, group)
    return table if table is not None and table.lobby_message_id is not None else None


# ----- 3. a lost summary -------------------------------------------------------------------------


async def test_a_deal_summary_lost_with_its_process_is_shown_at_the_next_start(
    emulator: Emulator, storage: RedisStorage, factory: Callable[..., AnyApplication]
) -> None:
    driver = Driver(emulator.world, default_timeout=10.0)
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    async with running_bot(factory, emulator) as first:
        svc = services_of(first)
        await start_game(driver, group, [anya])
        await hand_of(anya)
        await eventually(lambda: _table_shown(svc, group), "the table message sent")
        # Telegram stops answering sends to the group: the deal's summary is never confirmed.
        driver.world.inject_faults(method="sendMessage", chat_id=group.id, status=503, count=10**6)

        def deal_over() -> bool:
            return any("окончена" in m.content for m in anya.dm.bot_messages)

        await play_until(driver, svc, [anya], deal_over, rng=random.Random(5))
        stuck = await table_of(svc, group)
        assert stuck is not None and [p.index for p in stuck.pending_summaries] == [0]
    # The process is gone, and the send it was retrying with it.
    driver.world.clear_faults()
    assert not any("Раздача №1 окончена" in m.content for m in group.bot_messages)
    async with running_bot(factory, emulator) as second:
        svc = services_of(second)
        await group.wait_bot_message(lambda m: "Раздача №1 окончена" in m.content)
        await eventually(lambda: _no_pending(svc, group), "the summary confirmed")


async def _table_shown(svc: Services, group: SimGroup) -> bool:
    table = await table_of(svc, group)
    return table is not None and table.table_message_id is not None


async def _no_pending(svc: Services, group: SimGroup) -> bool:
    table = await table_of(svc, group)
    return table is not None and table.pending_summaries == []


async def test_a_summary_shown_is_no_longer_pending(
    app: AnyApplication, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])

    def deal_over() -> bool:
        return any("Раздача №1 окончена" in m.content for m in group.bot_messages)

    await play_until(driver, svc, [anya], deal_over, rng=random.Random(6))
    await eventually(lambda: _no_pending(svc, group), "the summary confirmed")


# ----- 4. timers -------------------------------------------------------------------------------


async def test_a_timer_claimed_by_a_process_that_died_fires_after_its_lease(
    app: AnyApplication, svc: Services, storage: RedisStorage, clock: FakeClock
) -> None:
    ghost = TimerId("lobby", -42, None, "ghost1").pack()  # a lobby long gone: firing it does nothing
    due = clock.time() + 10
    await storage.add_timers({ghost: due})
    # Another process claims it when due (its clock is ahead of this one's ticks) and dies.
    assert await storage.claim_timers(due, lease=svc.settings.timer_lease) == [ghost]
    clock.advance(11)
    await asyncio.sleep(0.2)
    assert ghost not in svc.timers.fired, "its lease is live: the other process may still fire it"
    clock.advance(svc.settings.timer_lease)
    await eventually(lambda: ghost in svc.timers.fired, "the timer fired after its lease")
    await svc.timers.idle()
    inflight = storage.inflight_key(storage.bucket_of(ghost))
    assert await storage.client.zcard(inflight) == 0, "fired: its lease is released"
    assert list(svc.timers.fired).count(ghost) == 1


def test_the_in_flight_timers_share_the_timers_slot_on_a_cluster(storage: RedisStorage) -> None:
    # The claim script touches both sets of a bucket and its claim's record: on a Redis Cluster they
    # must hash to one slot.
    for bucket in range(storage.timer_buckets):
        due, inflight = storage.timers_key(bucket), storage.inflight_key(bucket)
        assert key_slot(inflight.encode()) == key_slot(due.encode())
        assert key_slot(storage.claim_key(bucket, "0123abcd").encode()) == key_slot(due.encode())


async def test_a_timer_failing_while_redis_is_down_logs_one_warning_and_fires_later(
    app: AnyApplication,
    svc: Services,
    storage: RedisStorage,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ghost = TimerId("table", -43, None, "ghost2").pack()

    async def down(*args: object, **kwargs: object) -> Any:
        raise RedisConnectionError("Connection refused")

    # Redis answers the claim, then goes away: loading the table and storing the retry both fail.
    monkeypatch.setattr(storage, "load_table", down)
    monkeypatch.setattr(storage, "add_timers", down)
    with caplog.at_level(logging.WARNING, logger="bot.table.timers"):
        await RedisStorage.add_timers(storage, {ghost: clock.time()})
        await eventually(lambda: ghost in svc.timers.fired, "the timer claimed")
        await svc.timers.idle()
    lines = [r for r in caplog.records if ghost in r.getMessage()]
    assert [r.levelno for r in lines] == [logging.WARNING], [r.getMessage() for r in lines]
    assert lines[0].exc_info is None, "one line, no traceback"
    monkeypatch.undo()
    # Redis is back: the timer is due again once its lease ends, and fires (a no-op for a ghost).
    clock.advance(svc.settings.timer_lease + 1)
    await eventually(lambda: list(svc.timers.fired).count(ghost) == 2, "the timer fired again")
    await svc.timers.idle()
    assert await storage.client.zcard(storage.inflight_key(storage.bucket_of(ghost))) == 0


async def test_a_timer_that_failed_during_a_storage_fault_fires_within_seconds_of_its_end(
    app: AnyApplication,
    svc: Services,
    storage: RedisStorage,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 33 item 7: the claim is given back as soon as storage takes writes again, so the timer
    fires a second or two after the fault ends, not when its 60-s lease does."""
    ghost = TimerId("table", -44, None, "ghost3").pack()

    async def full(*args: object, **kwargs: object) -> Any:
        raise OutOfMemoryError("command not allowed when used memory > 'maxmemory'.")

    # Redis answers the claim, then refuses every write: the firing, its retry, giving the claim back.
    monkeypatch.setattr(storage, "load_table", full)
    monkeypatch.setattr(storage, "add_timers", full)
    monkeypatch.setattr(storage, "release_timer", full)
    with caplog.at_level(logging.WARNING, logger="bot.table.timers"):
        await RedisStorage.add_timers(storage, {ghost: clock.time()})
        await eventually(lambda: ghost in svc.timers.fired, "the timer claimed")
        await asyncio.sleep(1.5)  # the fault lasts: the claim cannot be given back meanwhile
        monkeypatch.undo()
        # From here the timers' clock goes at the pace of real time, as it would in production.
        loop = asyncio.get_running_loop()
        ended = last = loop.time()
        while list(svc.timers.fired).count(ghost) < 2:
            assert loop.time() - ended < 3.0, "not fired again within 3 s of the fault's end"
            await asyncio.sleep(0.05)
            clock.advance(loop.time() - last)
            last = loop.time()
        await svc.timers.idle()
    lines = [r for r in caplog.records if ghost in r.getMessage()]
    assert [r.levelno for r in lines] == [logging.WARNING] and lines[0].exc_info is None
    assert await storage.client.zcard(storage.inflight_key(storage.bucket_of(ghost))) == 0


# ----- 5. DEFAULT_LANGUAGE -----------------------------------------------------------------------


@pytest.fixture
def english(settings: Settings) -> Iterator[Settings]:
    """The operator's DEFAULT_LANGUAGE is English (the process default is restored afterwards)."""
    try:
        yield dataclasses.replace(settings, default_language="en")
    finally:
        set_default_lang("ru")


async def test_default_language_applies_where_no_chat_or_person_has_one(
    emulator: Emulator, storage: RedisStorage, english: Settings
) -> None:
    def factory(token: str, **kwargs: Any) -> AnyApplication:
        return build_application(token, storage=storage, settings=english, rate_limiter=False, **kwargs)

    driver = Driver(emulator.world, default_timeout=10.0)
    anya = driver.add_user("Аня")
    group = driver.add_group("Goats", [anya])
    async with running_bot(factory, emulator):
        assert pick_lang(None, "de") == "en" and pick_lang("ru") == "ru"
        await anya.send(group, "/newgame")
        message = await group.wait_bot_message(lambda m: m in lobby_messages(group))
        assert "gathering a table" in message.content, message.content
