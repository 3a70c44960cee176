"""3-person ``sochi``'s stored state: a table of three seats and the match's individual scores round
trip, and a document written before the scores existed still loads (same schema, no migration)."""

from __future__ import annotations

import json

import pytest

from bot.storage import MatchState, RedisStorage, Seat, Table

pytestmark = pytest.mark.cluster  # each test also runs on a real Redis Cluster


async def test_sochi_scores_and_goats_are_stored_and_older_documents_still_load(
    storage: RedisStorage,
) -> None:
    seats: list[Seat | None] = [Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate("ABC")]
    table = Table(
        table_id="so3", chat_id=-100321, creator_id=1, rules={"preset": "sochi"}, seats=seats, status="over"
    )
    table.match = MatchState(first_dealer=0, dealer=1, scores=[4, 12, 6], goats=[1], title="goat")
    await storage.save_table(table, ttl=60)
    loaded = await storage.load_table(table.chat_id, None)
    assert loaded is not None and loaded == table
    assert loaded.match is not None and loaded.match.scores == [4, 12, 6] and loaded.match.goats == [1]
    assert len(loaded.seats) == 3
    # A pair game's document from before the fields: no migration, the scores are empty.
    key = storage.table_key(table.chat_id, None)
    doc = json.loads(await storage.client.hget(key, "data"))  # type: ignore[misc]
    doc["rules"] = {"preset": "classic"}
    doc["seats"].append(None)
    del doc["match"]["scores"], doc["match"]["goats"]
    await storage.client.hset(key, "data", json.dumps(doc))  # type: ignore[misc]
    old = await storage.load_table(table.chat_id, None)
    assert old is not None and old.match is not None and old.match.scores == [] and old.match.goats == []
    assert old.schema_version == table.schema_version
