"""Moving a group's table, settings and history to the supergroup it became: one Lua script."""

from __future__ import annotations

import pytest

from bot.storage import ChatSettings, RedisStorage, StaleWrite, Table

pytestmark = pytest.mark.cluster  # each test also runs on a real Redis Cluster

OLD, NEW = -4001, -1001000000001


def _table(chat_id: int = OLD) -> Table:
    return Table(table_id="abcd", chat_id=chat_id, creator_id=7, rules={"preset": "flip"})


async def _with_chat_state(storage: RedisStorage) -> Table:
    table = _table()
    await storage.save_table(table, ttl=60)
    await storage.save_chat_settings(OLD, ChatSettings(lang="en"))
    await storage.push_history(OLD, {"deals": [1]})
    return table


async def test_table_settings_and_history_move_together(storage: RedisStorage) -> None:
    table = await _with_chat_state(storage)
    moved = table.model_copy(update={"chat_id": NEW})
    await storage.move_chat(OLD, NEW, moved, ttl=60)
    assert moved.version == table.version + 1
    assert await storage.load_table(OLD, None) is None
    assert await storage.load_table(NEW, None) == moved
    assert (await storage.chat_settings(NEW)).lang == "en"
    assert (await storage.chat_settings(OLD)).lang is None
    assert await storage.history(NEW) == [{"deals": [1]}]
    assert await storage.history(OLD) == []
    assert 0 < await storage.client.pttl(storage.table_key(NEW, None)) <= 60_000


async def test_a_table_changed_since_it_was_loaded_is_not_moved(storage: RedisStorage) -> None:
    table = await _with_chat_state(storage)
    stale = table.model_copy(update={"chat_id": NEW})
    await storage.save_table(table, ttl=60)  # someone moved on meanwhile
    with pytest.raises(StaleWrite):
        await storage.move_chat(OLD, NEW, stale, ttl=60)
    # Nothing moved: not the table, not the settings, not the history.
    assert await storage.load_table(NEW, None) is None
    assert (await storage.load_table(OLD, None)) == table
    assert (await storage.chat_settings(OLD)).lang == "en"
    assert await storage.history(NEW) == []


async def test_a_supergroup_with_a_table_of_its_own_keeps_it(storage: RedisStorage) -> None:
    table = await _with_chat_state(storage)
    own = _table(NEW)
    own.table_id = "ffff"
    await storage.save_table(own, ttl=60)
    with pytest.raises(StaleWrite):
        await storage.move_chat(OLD, NEW, table.model_copy(update={"chat_id": NEW}), ttl=60)
    assert (await storage.load_table(NEW, None)) == own
    assert (await storage.load_table(OLD, None)) == table


async def test_moving_again_finds_nothing_left_and_overwrites_nothing(storage: RedisStorage) -> None:
    table = await _with_chat_state(storage)
    await storage.move_chat(OLD, NEW, table.model_copy(update={"chat_id": NEW}), ttl=60)
    await storage.save_chat_settings(OLD, ChatSettings(lang="ru"))  # a stray write to the old id
    await storage.move_chat(OLD, NEW, None, ttl=60)
    assert (await storage.chat_settings(NEW)).lang == "en"
    assert (await storage.load_table(NEW, None)) is not None
