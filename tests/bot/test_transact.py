"""Services.transact: a table this process saved moments ago is changed without reading it back."""

from __future__ import annotations

import pytest

from bot.storage import RedisStorage, Table
from bot.table.game import Refusal
from bot.tg.services import Services

pytestmark = pytest.mark.cluster  # each test also runs on a real Redis Cluster


async def test_a_table_saved_here_moments_ago_is_not_read_back_but_checked_by_its_version(
    app: object, svc: Services, storage: RedisStorage
) -> None:
    key = (-100777, None)
    assert await svc.create(Table(table_id="tx1", chat_id=key[0], creator_id=1, chat_title="A", rules={}))

    def title(suffix: str) -> object:
        def change(table: Table | None) -> str:
            assert table is not None
            table.chat_title += suffix
            return table.chat_title

        return change

    assert (await svc.transact(key, title("1")))[1] == "A1"  # read from Redis, then kept
    # The stored JSON changed behind the version's back: the next change does not read it.
    stored = await storage.load_table(*key)
    assert stored is not None
    stored.chat_title = "X"
    await storage.client.hset(storage.table_key(*key), "data", stored.model_dump_json())  # type: ignore[misc]
    assert (await svc.transact(key, title("2")))[1] == "A12"

    # Another process saves: the compare-and-set fails and the change is made on what it stored.
    other = RedisStorage(storage.client, prefix=storage.prefix)
    theirs = await other.load_table(*key)
    assert theirs is not None
    theirs.chat_title = "B"
    await other.save_table(theirs, ttl=60)
    table, result = await svc.transact(key, title("3"))
    assert result == "B3" and table is not None and table.version == theirs.version + 1

    # A refusal is never decided on the kept copy: it is decided again on the stored table.
    theirs = await other.load_table(*key)
    assert theirs is not None
    theirs.chat_title = "C"
    await other.save_table(theirs, ttl=60)

    def only_for_c(table: Table | None) -> str:
        assert table is not None
        if table.chat_title != "C":
            raise Refusal("alert.stale")
        return "ok"

    table, result = await svc.transact(key, only_for_c)
    assert result == "ok" and table is not None and table.chat_title == "C"
    assert table.version == theirs.version, "nothing changed, nothing written"
