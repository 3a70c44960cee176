"""The Redis storage: versioned JSON, compare-and-set on the version, history and expiry."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.storage import ChatSettings, RedisStorage, Seat, StaleWrite, Table, UserSettings

pytestmark = pytest.mark.cluster  # each test also runs on a real Redis Cluster


def _table(chat_id: int = -100123, thread_id: int | None = None) -> Table:
    return Table(
        table_id="abcd", chat_id=chat_id, thread_id=thread_id, creator_id=7, rules={"preset": "flip"}
    )


async def test_a_table_round_trips_as_versioned_json(storage: RedisStorage) -> None:
    table = _table()
    table.seats[2] = Seat(kind="human", name="Вера", user_id=42)
    await storage.save_table(table, ttl=60)
    assert table.version == 1
    loaded = await storage.load_table(table.chat_id, None)
    assert loaded == table
    raw = await storage.client.hget(storage.table_key(table.chat_id, None), "data")  # type: ignore[misc]
    assert '"schema_version":1' in raw and "Вера" in raw


async def test_the_stamp_alone_is_the_stored_tables_version_and_revision(storage: RedisStorage) -> None:
    table = _table()
    assert await storage.table_stamp(table.chat_id, None) is None
    await storage.save_table(table, ttl=60)
    assert await storage.table_stamp(table.chat_id, None) == table.stamp
    before = table.stamp
    await storage.save_table(table, ttl=60)
    stamp = await storage.table_stamp(table.chat_id, None)
    assert stamp == table.stamp != before and stamp[0] == before[0] + 1


async def test_fields_from_a_newer_release_survive_a_load_and_save_by_this_one(storage: RedisStorage) -> None:
    """A rolling deploy: a newer process saved a table with fields this release does not know (at the
    top and inside a seat); this one loads it, changes it and saves it, and they are still there."""
    table = _table()
    table.seats[0] = Seat(kind="human", name="Вера", user_id=42)
    await storage.save_table(table, ttl=60)
    key = storage.table_key(table.chat_id, None)
    doc = json.loads(await storage.client.hget(key, "data"))  # type: ignore[misc]
    doc["spectators"] = [7, 8]
    doc["seats"][0]["avatar"] = "🐐"
    await storage.client.hset(key, "data", json.dumps(doc))  # type: ignore[misc]
    loaded = await storage.load_table(table.chat_id, None)
    assert loaded is not None and loaded.seats[0] is not None
    loaded.seats[1] = Seat(kind="bot", name="Бот", level="easy")
    await storage.save_table(loaded, ttl=60)
    saved = json.loads(await storage.client.hget(key, "data"))  # type: ignore[misc]
    assert saved["spectators"] == [7, 8]
    assert saved["seats"][0]["avatar"] == "🐐"
    assert saved["seats"][1]["name"] == "Бот", "this release's change is saved too"


async def test_keys_carry_the_chat_hash_tag(storage: RedisStorage) -> None:
    assert "kozel:{-100123}:table:5" in storage.table_key(-100123, 5)
    assert "kozel:{-100123}:history" in storage.history_key(-100123)


async def test_compare_and_set_applies_a_double_write_once(storage: RedisStorage) -> None:
    table = _table()
    await storage.save_table(table, ttl=60)
    first = await storage.load_table(table.chat_id, None)
    second = await storage.load_table(table.chat_id, None)
    assert first is not None and second is not None
    results = await asyncio.gather(
        storage.save_table(first, ttl=60), storage.save_table(second, ttl=60), return_exceptions=True
    )
    assert sum(isinstance(r, StaleWrite) for r in results) == 1
    assert (await storage.load_table(table.chat_id, None)).version == 2  # type: ignore[union-attr]


async def test_a_new_table_cannot_overwrite_an_existing_one(storage: RedisStorage) -> None:
    await storage.save_table(_table(), ttl=60)
    with pytest.raises(StaleWrite):
        await storage.save_table(_table(), ttl=60)


async def test_forum_topics_hold_separate_tables(storage: RedisStorage) -> None:
    await storage.save_table(_table(thread_id=11), ttl=60)
    assert await storage.load_table(-100123, None) is None
    assert await storage.load_table(-100123, 11) is not None


async def test_abandoned_tables_expire(storage: RedisStorage) -> None:
    table = _table()
    await storage.save_table(table, ttl=0.05)
    await asyncio.sleep(0.2)
    assert await storage.load_table(table.chat_id, None) is None


async def test_deleting_archives_the_record(storage: RedisStorage) -> None:
    table = _table()
    await storage.save_table(table, ttl=60)
    await storage.delete_table(table, archive={"rules": {"preset": "flip"}, "deals": []})
    assert await storage.load_table(table.chat_id, None) is None
    assert await storage.history(table.chat_id) == [{"rules": {"preset": "flip"}, "deals": []}]


async def test_settings_default_and_persist(storage: RedisStorage) -> None:
    assert await storage.chat_settings(1) == ChatSettings()
    await storage.save_chat_settings(1, ChatSettings(lang="en"))
    assert (await storage.chat_settings(1)).lang == "en"
    await storage.save_user_settings(5, UserSettings(started=True))
    assert (await storage.user_settings(5)).started


async def test_documents_of_another_schema_are_not_loaded(storage: RedisStorage) -> None:
    await storage.client.hset(  # type: ignore[misc]
        storage.table_key(9, None), mapping={"v": "3", "data": '{"schema_version": 999}'}
    )
    assert await storage.load_table(9, None) is None


async def test_chat_settings_are_read_from_redis_once_per_cache_time(
    storage: RedisStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = RedisStorage(storage.client, prefix=storage.prefix)  # another process, same Redis
    assert (await storage.chat_settings(1)).lang is None
    await other.save_chat_settings(1, ChatSettings(lang="en"))
    # Within the cache time this process keeps what it read; its own changes it sees at once.
    assert (await storage.chat_settings(1)).lang is None
    mine = await storage.chat_settings(1)
    mine.lang = "ru"  # a caller changing its copy does not change the cache
    assert (await storage.chat_settings(1)).lang is None
    await storage.save_chat_settings(1, ChatSettings(turn_time=30))
    assert (await storage.chat_settings(1)).turn_time == 30
    await other.save_chat_settings(1, ChatSettings(lang="en"))
    assert (await storage.chat_settings(1)).turn_time == 30
    # Once the cache time is over, the other process's change is read.
    monkeypatch.setattr("bot.storage.redis_settings.CHAT_SETTINGS_CACHE", 0.0)
    storage._chat_cache.clear()
    assert (await storage.chat_settings(1)).lang == "en"
    await other.save_chat_settings(1, ChatSettings(lang="ru"))
    assert (await storage.chat_settings(1)).lang == "ru"  # no cache time: every read goes to Redis
