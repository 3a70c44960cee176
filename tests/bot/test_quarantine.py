"""A stored table that does not load is moved aside for inspection, once, with one log line, and its
chat can start a new game at once (bot/storage/quarantine.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from bot.render.i18n import Tr
from bot.sandbox import Driver, StoredMessage
from bot.sandbox.clock import FakeClock
from bot.storage import ChatSettings, RedisStorage, StaleWrite, Table
from bot.storage.quarantine import Quarantined, TableReader, quarantine_key
from bot.table.core import Limits
from bot.tg.services import Services, Settings
from tests.bot.helpers import buttons, legal_hand, lobby, start_game

pytestmark = pytest.mark.cluster  # each test also runs on a real Redis Cluster

CHAT = -100777


def _table(chat_id: int = CHAT) -> Table:
    return Table(table_id="q1", chat_id=chat_id, creator_id=1, chat_title="A", rules={})


def _valid() -> dict[str, object]:
    return json.loads(_table().model_dump_json())  # type: ignore[no-any-return]


#: Each kind of corruption: what is written over a stored table (fields of its hash, or a string).
CORRUPTIONS: dict[str, dict[str, bytes] | bytes] = {
    "garbage bytes": {"data": b"\xff\xfe\x00\x9c\x81garbage\x00"},
    "plain text": {"data": "Привет, это не JSON".encode()},
    "a JSON array": {"data": b"[1, 2, 3]"},
    "JSON of the wrong shape": {"data": b'{"players": ["a", "b"], "score": 3}'},
    "invalid field values": {
        "data": json.dumps({**_valid(), "status": "flying", "seats": [{"kind": "alien"}]}).encode()
    },
    "an older schema": {"data": json.dumps({**_valid(), "schema_version": 0}).encode()},
    "a version that is not a number": {"v": b"seven"},
    "no data": {"data": b""},
    "a string, not a hash": b"plain text where a table was",
}


@pytest.fixture
async def told(storage: RedisStorage) -> AsyncIterator[list[Quarantined]]:
    """The tables this storage moved aside, as the handlers are told."""
    found: list[Quarantined] = []
    storage.on_quarantine = found.append
    yield found


async def _corrupt(storage: RedisStorage, kind: str, chat_id: int = CHAT) -> tuple[str, bytes]:
    """Store a table, then write ``kind`` over it; its key and what it holds now (DUMP)."""
    await storage.save_table(_table(chat_id), ttl=60)
    key = storage.table_key(chat_id, None)
    bad = CORRUPTIONS[kind]
    if isinstance(bad, bytes):
        await storage.client.delete(key)
        await storage.client.set(key, bad)
    elif bad.get("data") == b"":
        await storage.client.hdel(key, "data")  # type: ignore[misc]
    else:
        await storage.client.hset(key, mapping=bad)  # type: ignore[misc]
    dumped = await storage.client.dump(key)
    assert dumped is not None
    return key, dumped


@pytest.mark.parametrize("kind", list(CORRUPTIONS))
async def test_a_table_that_does_not_load_is_moved_aside_once_with_one_log_line(
    storage: RedisStorage, told: list[Quarantined], kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    key, dumped = await _corrupt(storage, kind)
    with caplog.at_level(logging.WARNING):
        assert await storage.load_table(CHAT, None) is None
        assert await storage.load_table(CHAT, None) is None
    assert await storage.client.exists(key) == 0
    assert len(told) == 1
    lost = told[0]
    assert (lost.chat_id, lost.thread_id, lost.key) == (CHAT, None, key) and lost.why
    assert await storage.client.dump(lost.moved_to) == dumped, "its bytes are kept as they were"
    assert 0 < await storage.client.ttl(lost.moved_to) <= 30 * 86400
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1, [r.getMessage() for r in lines]
    line = lines[0].getMessage()
    assert str(CHAT) in line and key in line and lost.moved_to in line and lost.why in line
    fresh = _table()
    await storage.save_table(fresh, ttl=60)  # /newgame's create works at once
    assert (await storage.load_table(CHAT, None)) == fresh
    assert [t.chat_id async for t in storage.tables()] == [CHAT], "the kept bytes are no table"


async def test_a_scan_of_every_table_at_a_start_moves_a_corrupt_one_aside_and_yields_the_others(
    storage: RedisStorage, told: list[Quarantined]
) -> None:
    await _corrupt(storage, "garbage bytes")
    await storage.save_table(_table(CHAT - 1), ttl=60)
    assert [t.chat_id async for t in storage.tables()] == [CHAT - 1]
    assert [lost.chat_id for lost in told] == [CHAT]


async def test_why_names_what_is_wrong(storage: RedisStorage, told: list[Quarantined]) -> None:
    expected = {
        "garbage bytes": "not JSON",
        "plain text": "not JSON",
        "a JSON array": "not an object",
        "JSON of the wrong shape": "table_id: Field required",
        "invalid field values": "status: Input should be",
        "an older schema": "schema_version 0",
        "a version that is not a number": "is not a number",
        "no data": "no data",
        "a string, not a hash": "not a hash",
    }
    for i, (kind, words) in enumerate(expected.items()):
        await _corrupt(storage, kind, CHAT - i)
        assert await storage.load_table(CHAT - i, None) is None
        assert words in told[-1].why, (kind, told[-1].why)


async def test_a_save_over_a_key_that_is_not_a_hash_is_refused_as_stale(storage: RedisStorage) -> None:
    mine = _table()
    await storage.save_table(mine, ttl=60)
    key = storage.table_key(CHAT, None)
    await storage.client.delete(key)
    await storage.client.set(key, "plain text")
    with pytest.raises(StaleWrite):
        await storage.save_table(mine, ttl=60)
    with pytest.raises(StaleWrite):
        await storage.delete_table(mine)


async def test_of_instances_finding_it_at_once_exactly_one_moves_it_and_tells(
    storage: RedisStorage, redis_url: str, told: list[Quarantined]
) -> None:
    others = [RedisStorage.from_url(redis_url, prefix=storage.prefix) for _ in range(3)]
    for other in others:
        other.on_quarantine = told.append
    try:
        await _corrupt(storage, "plain text")
        loads: list[Callable[[], Awaitable[Table | None]]] = [
            lambda s=s: s.load_table(CHAT, None)  # type: ignore[misc]
            for s in [storage, *others]
        ]
        assert await asyncio.gather(*(load() for load in loads)) == [None] * 4
    finally:
        for other in others:
            await other.close()
    assert len(told) == 1


async def test_a_table_changed_meanwhile_is_not_moved_aside(
    storage: RedisStorage, told: list[Quarantined]
) -> None:
    """What was read is compared with what is stored when moving it: a table that changed since is
    read again, not moved."""
    key, _ = await _corrupt(storage, "plain text")
    reader = TableReader(storage.client)
    lost = Quarantined(CHAT, None, key, quarantine_key(key, 1), "test")
    assert not await reader.set_aside(lost, ["hash", b"1", "0" * 40])  # not what is stored now
    assert await storage.client.exists(key) == 1
    assert await reader.load(key, CHAT, None, told.append) is None
    assert len(told) == 1 and await storage.client.exists(key) == 0


async def test_a_storage_that_cannot_tell_the_chat_leaves_a_corrupt_table_for_the_bot(
    storage: RedisStorage, redis_url: str, told: list[Quarantined]
) -> None:
    key, dumped = await _corrupt(storage, "garbage bytes")
    tool = RedisStorage.from_url(redis_url, prefix=storage.prefix)  # the soak's scan, say
    try:
        assert await tool.load_table(CHAT, None) is None
        assert [t async for t in tool.tables()] == []
    finally:
        await tool.close()
    assert await storage.client.dump(key) == dumped
    assert await storage.load_table(CHAT, None) is None
    assert len(told) == 1 and await storage.client.exists(key) == 0


async def test_a_document_of_a_newer_schema_is_left_alone(
    storage: RedisStorage, told: list[Quarantined]
) -> None:
    key = storage.table_key(CHAT, None)
    doc = {**_valid(), "schema_version": 999, "new_shape": True}
    await storage.client.hset(key, mapping={"v": "3", "data": json.dumps(doc)})  # type: ignore[misc]
    assert await storage.load_table(CHAT, None) is None
    assert await storage.client.exists(key) == 1 and told == []


@pytest.fixture
def clock() -> FakeClock:
    """The time the bot's timers run by; it moves only when the test says so."""
    return FakeClock(start=time.time())


@pytest.fixture
def settings(clock: FakeClock) -> Settings:
    """Bots move at once, nothing is paced, timers are checked every 20 ms against the fake clock."""
    return Settings(bot_delay=0.0, limits=Limits.off(), clock=clock.time, timer_interval=0.02)


async def test_a_game_whose_table_is_corrupted_tells_its_chat_once_and_a_new_game_starts_at_once(
    app: object, driver: Driver, svc: Services, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """Mid-game, with bot players and turn timers: the table is moved aside once, the chat is told
    once in its language, taps are answered, nothing logs an error again, /newgame works at once."""
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    hand = await legal_hand(driver, svc, anya)  # bots have played up to her turn; her timers armed
    # Her hand's id stored first: a hand whose id cannot be stored (the table corrupted while it was
    # on its way) is deleted, and a DM with no hand would leave nothing to tap below.
    await svc.presenter.idle()
    await svc.storage.save_chat_settings(group.id, ChatSettings(lang="en"))
    assert isinstance(svc.storage, RedisStorage)
    # The whole hash written anew (a copy this process kept of its last save is refused by the
    # compare-and-set, so every path reads it back: a change of "data" alone would be saved over).
    key = svc.storage.table_key(group.id, None)
    version = await svc.storage.client.hget(key, "v")  # type: ignore[misc]
    await svc.storage.client.delete(key)
    await svc.storage.client.hset(key, mapping={"v": version, "data": "plain text"})  # type: ignore[misc]
    lost_text = Tr("en")("table.lost")

    def notices() -> int:
        return sum(m.content == lost_text for m in group.bot_messages)

    with caplog.at_level(logging.WARNING):
        for _ in range(4):  # her reminder, her timeout, and then some: every timer of the table is due
            clock.advance(120)
            await asyncio.sleep(0.2)
        await driver.wait_for(lambda: notices() or None, timeout=10, what="the chat told")

        # Her newest hand (a render under way when the table was corrupted may have sent it anew, or
        # shown it as an away person's, its cards not marked playable): a tap on any of its cards.
        def cards(m: StoredMessage) -> list[str]:  # its card buttons, playable ("A") or not ("X")
            return [data for _, b, data in buttons(svc, m) if b.payload[:1] in ("A", "X")]

        hand = next(m for m in reversed(anya.dm.bot_messages) if cards(m))
        data = cards(hand)[0]
        tap = await anya.tap(hand, data=data)
        assert tap.show_alert and tap.answer_text, "a tap on the lost game's hand is answered"
        message = await lobby(driver, group, anya)
        assert "🪑" in str(message.buttons)
        await svc.lost.idle()
        await svc.presenter.idle()
        await svc.driver.idle()
    assert notices() == 1
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "lobby"
    loud = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(loud) == 1 and "does not load" in loud[0] and str(group.id) in loud[0], loud
    assert not [r for r in caplog.records if r.levelno == logging.WARNING and r.name.startswith("bot.")], [
        r.getMessage() for r in caplog.records if r.levelno == logging.WARNING
    ]
