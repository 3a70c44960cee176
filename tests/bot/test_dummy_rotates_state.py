"""``dummy`` with ``blind_rotates``, the stored table (RULES.md §5): the people's seats move with the
deal number, with their turn timeouts and away marks; a finished deal is read as it was seated; each
person's score and the goats are stored and recounted by the deep stored-state check."""

from __future__ import annotations

import random

from bot.engine import Rules
from bot.stats.entry import entry_of, meta_of
from bot.storage import RedisStorage, Seat, Table
from bot.storage.invariants import table_problems
from bot.table import game
from bot.table.rotation import as_seated, entry_seated, people, reseat

ROTATES = Rules.make("dummy", blind_rotates=True, match_target=6)


def _table() -> Table:
    seats: list[Seat | None] = [Seat(kind="human", name=f"P{i}", user_id=i + 1) for i in range(3)]
    return Table(table_id="t1", chat_id=-100555, creator_id=1, rules=ROTATES.to_json(), seats=[*seats, None])


def _names(table: Table) -> list[str | None]:
    return [s.name if s is not None else None for s in table.seats]


def test_dummy_blind_rotates_reseat_moves_each_person_with_their_marks() -> None:
    table = _table()
    table.timeouts, table.away, table.blocked = {0: 1}, [0], [2]
    reseat(table, ROTATES, 1, 2)
    # Deal 2: seat 0 holds person 1, seat 1 (the blind's partner) person 2, seat 2 person 0.
    assert _names(table) == ["P1", "P2", "P0", None]
    assert table.timeouts == {2: 1} and table.away == [2] and table.blocked == [1]
    reseat(table, ROTATES, 2, 2)  # a redeal keeps the deal number: nobody moves
    assert _names(table) == ["P1", "P2", "P0", None]
    reseat(table, ROTATES, 2, 4)
    assert _names(table) == ["P0", "P1", "P2", None]
    fixed = _table()
    reseat(fixed, Rules.make("dummy"), 1, 2)
    assert _names(fixed) == ["P0", "P1", "P2", None]


def _play(table: Table, rng: random.Random, until: int) -> None:
    """Random decisions until the match is at deal ``until`` or over."""
    while table.status == "playing" and table.match is not None and table.match.deal_no < until:
        deal = game.deal_of(table)
        assert deal is not None and deal.to_act is not None
        game.apply(table, deal.to_act, rng.choice(deal.legal_actions(deal.to_act)), rng)


def test_dummy_blind_rotates_stored_seats_follow_the_deal_number() -> None:
    table, rng = _table(), random.Random(3)
    game.start_match(table, rng)
    _play(table, rng, 3)
    m = table.match
    assert m is not None and m.deal_no == 3 and m.deals
    seating = ROTATES.seating(3)
    assert _names(table) == [f"P{p}" if p is not None else None for p in seating]
    assert [s.name for _, s in people(table) if s is not None] == ["P0", "P1", "P2"]
    # Deal 1 read as seated then: everybody back in their own seat, the stored table untouched.
    then = as_seated(table, 1)
    assert _names(then) == ["P0", "P1", "P2", None] and then.match is not None and then.match.deal_no == 1
    assert _names(table) == [f"P{p}" if p is not None else None for p in seating]


async def test_dummy_blind_rotates_match_is_stored_and_recounted(storage: RedisStorage) -> None:
    table, rng = _table(), random.Random(11)
    game.start_match(table, rng)
    await storage.save_table(table, ttl=60)
    assert table.match is not None and table.match.scores == [0, 0, 0]
    assert table_problems(table, deep=True) == []  # before any deal is counted too
    while table.status == "playing":
        _play(table, rng, table.match.deal_no + 1 if table.match else 1)
        await storage.save_table(table, ttl=60)
        assert table_problems(table, deep=True) == []
    stored = await storage.load_table(table.chat_id, None)
    assert stored is not None and stored.status == "over" and stored.match is not None
    m = stored.match
    assert m.goats and m.loser is None and max(m.scores) >= 6 and table_problems(stored, deep=True) == []
    forged = stored.model_copy(deep=True)
    assert forged.match is not None
    forged.match.scores[0] += 2
    assert any("stored scores" in p for p in table_problems(forged, deep=True))
    forged.match.scores[0] -= 2
    forged.status = "playing"
    assert any("goats" in p for p in table_problems(forged))


def test_dummy_blind_rotates_history_entry_keeps_the_people_in_their_deal_1_seats() -> None:
    table, rng = _table(), random.Random(11)
    game.start_match(table, rng)
    while table.status == "playing":
        _play(table, rng, 99)
    assert table.match is not None and table.match.goats
    meta = meta_of(entry_of(table, at=0.0))
    assert meta is not None and meta.finished
    assert [p.name for p in meta.seats[:3]] == ["P0", "P1", "P2"]
    seats: list[Seat | None] = [Seat(kind="human", name=p.name) for p in meta.seats[:3]]
    stand_in = Table(table_id="x", chat_id=1, creator_id=0, rules=table.rules, seats=[*seats, None])
    assert _names(entry_seated(stand_in, ROTATES, 2)) == ["P1", "P2", "P0", None]
    assert _names(entry_seated(stand_in, ROTATES, 1)) == ["P0", "P1", "P2", None]
