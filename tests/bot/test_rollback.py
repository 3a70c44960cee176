"""A Redis that goes back to an older state (a failover's replication lag, AOF ``everysec`` losing a
second) and is advanced again by another instance to the same version: the compare-and-set also
compares the state's revision, so no instance overwrites the other's change with a copy it kept.

The rollback is simulated by writing the table's older stored bytes back (DUMP, then RESTORE).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from bot.sandbox import Driver
from bot.storage import RedisStorage, Seat, StaleWrite, Table
from bot.table import game
from bot.table.usecase import DealCache
from bot.tg.services import Services
from tests.bot.helpers import legal_hand, start_game

pytestmark = pytest.mark.cluster  # each test also runs on a real Redis Cluster


@pytest.fixture
async def other(storage: RedisStorage, redis_url: str) -> AsyncIterator[RedisStorage]:
    """A second instance's storage: its own connections to the same Redis, the same keys."""
    store = RedisStorage.from_url(redis_url, prefix=storage.prefix)
    try:
        yield store
    finally:
        await store.close()


def _table(chat_id: int = -100555, title: str = "A") -> Table:
    return Table(table_id="rb1", chat_id=chat_id, creator_id=1, chat_title=title, rules={})


async def _rolled_back(storage: RedisStorage, key: str, older: bytes) -> None:
    """Redis lost what was written since ``older`` was dumped."""
    await storage.client.restore(key, 0, older, replace=True)


async def test_a_save_on_a_state_redis_lost_is_refused_though_the_version_came_round_again(
    storage: RedisStorage, other: RedisStorage
) -> None:
    mine = _table()
    await storage.save_table(mine, ttl=60)
    key = storage.table_key(mine.chat_id, None)
    older = await storage.client.dump(key)
    mine.chat_title = "A1"
    await storage.save_table(mine, ttl=60)  # acknowledged, then lost by the rollback
    await _rolled_back(storage, key, older)

    theirs = await other.load_table(mine.chat_id, None)
    assert theirs is not None and theirs.chat_title == "A"
    theirs.chat_title = "A-B"
    await other.save_table(theirs, ttl=60)
    assert theirs.version == mine.version, "the other instance reached the same version number"

    mine.chat_title = "A12"
    with pytest.raises(StaleWrite):
        await storage.save_table(mine, ttl=60)
    stored = await storage.load_table(mine.chat_id, None)
    assert stored is not None and stored.chat_title == "A-B"
    with pytest.raises(StaleWrite):
        await storage.delete_table(mine)
    assert await storage.load_table(mine.chat_id, None) is not None


async def test_after_a_rollback_the_kept_copy_is_refused_and_the_change_redone_on_the_other_instances_state(
    app: object, svc: Services, storage: RedisStorage, other: RedisStorage
) -> None:
    key = (-100556, None)
    assert await svc.create(_table(key[0]))
    stored_key = storage.table_key(*key)
    older = await storage.client.dump(stored_key)

    def title(suffix: str) -> object:
        def change(table: Table | None) -> str:
            assert table is not None
            table.chat_title += suffix
            return table.chat_title

        return change

    assert (await svc.transact(key, title("1")))[1] == "A1"  # kept by this instance for 5 s
    await _rolled_back(storage, stored_key, older)
    theirs = await other.load_table(*key)
    assert theirs is not None
    theirs.chat_title = "A-B"
    await other.save_table(theirs, ttl=60)

    table, result = await svc.transact(key, title("2"))
    assert result == "A-B2", "the change is made again on the other instance's state, not on the kept copy"
    assert table is not None and table.version == theirs.version + 1
    stored = await storage.load_table(*key)
    assert stored is not None and stored.chat_title == "A-B2" and stored.stamp == table.stamp


async def test_a_table_stored_before_revisions_loads_and_saves(storage: RedisStorage) -> None:
    table = _table(-100557)
    await storage.save_table(table, ttl=60)
    key = storage.table_key(table.chat_id, None)
    await storage.client.hdel(key, "r")  # type: ignore[misc]
    loaded = await storage.load_table(table.chat_id, None)
    assert loaded is not None and loaded.stamp == (1, "")
    loaded.chat_title = "B"
    await storage.save_table(loaded, ttl=60)
    assert loaded.version == 2 and loaded.revision
    assert (await storage.load_table(table.chat_id, None)) == loaded
    assert "revision" not in await storage.client.hget(key, "data")  # type: ignore[misc]


async def test_every_save_and_a_move_store_a_new_revision(storage: RedisStorage) -> None:
    table = _table(-100558)
    seen = set()
    for title in "ABC":
        table.chat_title = title
        await storage.save_table(table, ttl=60)
        seen.add(table.revision)
    assert len(seen) == 3
    loaded = await storage.load_table(table.chat_id, None)
    assert loaded is not None
    loaded.chat_id = -100559
    await storage.move_chat(-100558, -100559, loaded, ttl=60)
    moved = await storage.load_table(-100559, None)
    assert moved is not None and moved.stamp == loaded.stamp and moved.revision not in seen
    assert await storage.load_table(-100558, None) is None


async def test_bot_players_follow_the_stored_state_when_the_state_they_saw_was_lost(
    app: object, driver: Driver, svc: Services
) -> None:
    """The bot driver saw a state of a higher version than the stored one (Redis went back since):
    its bot's move does not apply, and it decides on the stored state rather than on the lost one
    again and again."""
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    await legal_hand(driver, svc, anya)
    await svc.driver.idle()
    await svc.presenter.idle()
    stored = await svc.storage.load_table(group.id, None)
    assert stored is not None
    deal = svc.tables.snapshot(stored).deal
    assert deal is not None and deal.to_act == 0
    lost = stored.model_copy(deep=True)
    progress = game.play(lost, game.deal_of(lost), 0, deal.legal_actions(0)[0], random.Random(1))
    while progress.deal is not None and progress.deal.to_act == 0:  # her decisions, up to a bot's turn
        progress = game.play(lost, progress.deal, 0, progress.deal.legal_actions(0)[0], random.Random(1))
    assert progress.deal is not None and progress.deal.to_act is not None, "a bot's turn"
    lost.version, lost.revision = stored.version + 5, "lost"
    decided = len(svc.stats.bot_waits)
    svc.driver.show(svc.tables.snapshot(lost, progress=progress))
    for _ in range(200):
        if len(svc.stats.bot_waits) > decided:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    assert len(svc.stats.bot_waits) - decided == 1, "one decision on the lost state, then none"
    now = await svc.storage.load_table(group.id, None)
    assert now is not None and now.match is not None and stored.match is not None
    assert now.match.current == stored.match.current, "no bot move was made on the lost state"


def test_the_deal_cache_gives_no_deal_for_another_state_of_the_same_version() -> None:
    table = Table(
        table_id="dc1",
        chat_id=-100560,
        creator_id=1,
        rules={"preset": "flip"},
        seats=[Seat(kind="bot", name=f"B{i}", level="random") for i in range(4)],
    )
    game.start_match(table, random.Random(3))
    table.version, table.revision = 7, "aaaa"
    cache = DealCache()
    deal = cache.get(table)
    assert deal is not None and cache.peek(table) is deal
    other = table.model_copy(deep=True)
    other.revision = "bbbb"  # Redis went back, and another instance made version 7 again
    assert cache.peek(other) is None
    rebuilt = cache.get(other)
    assert rebuilt is not None and rebuilt is not deal and cache.peek(other) is rebuilt
