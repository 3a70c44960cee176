"""The storage checks every table state it saves: a state that loses or doubles a card is refused."""

from __future__ import annotations

import random

import pytest

from bot.engine import Rules
from bot.storage import RedisStorage, Seat, Table
from bot.storage.invariants import InvariantViolation, table_problems
from bot.table import game


def _playing(seed: int, moves: int) -> Table:
    """A classic match of four people, ``moves`` random decisions in (deal 2 and on after 36)."""
    rng = random.Random(seed)
    table = Table(
        table_id="t1",
        chat_id=-100555,
        creator_id=1,
        rules=Rules.make("classic").to_json(),
        seats=[Seat(kind="human", name=f"P{i}", user_id=i + 1) for i in range(4)],
    )
    game.start_match(table, rng)
    for _ in range(moves):
        deal = game.deal_of(table)
        assert deal is not None and deal.to_act is not None
        game.apply(table, deal.to_act, rng.choice(deal.legal_actions(deal.to_act)), rng)
    return table


async def test_every_state_of_a_match_is_saved(storage: RedisStorage) -> None:
    table = _playing(1, 0)
    rng = random.Random(1)
    await storage.save_table(table, ttl=60)
    for _ in range(60):  # deal 1 and into deal 2's brag
        deal = game.deal_of(table)
        assert deal is not None and deal.to_act is not None
        game.apply(table, deal.to_act, rng.choice(deal.legal_actions(deal.to_act)), rng)
        await storage.save_table(table, ttl=60)
    stored = await storage.load_table(table.chat_id, None)
    assert stored is not None and stored.match is not None and stored.match.deals
    assert table_problems(stored, deep=True) == []


async def test_a_deal_with_a_doubled_card_is_refused_and_not_stored(storage: RedisStorage) -> None:
    table = _playing(2, 10)
    await storage.save_table(table, ttl=60)
    assert table.match is not None and table.match.current is not None
    deck = table.match.current["deck"]
    deck[5] = deck[6]
    with pytest.raises(InvariantViolation, match="cannot be dealt"):
        await storage.save_table(table, ttl=60)
    stored = await storage.load_table(table.chat_id, None)
    assert stored is not None and stored.version == 1 and stored.match is not None
    assert stored.match.current is not None and stored.match.current["deck"] != deck


async def test_a_move_the_rules_refuse_is_refused(storage: RedisStorage) -> None:
    table = _playing(3, 10)
    assert table.match is not None and table.match.current is not None
    moves = table.match.current["moves"]
    moves.append(dict(moves[-1]))  # the same card again
    with pytest.raises(InvariantViolation, match="refused"):
        await storage.save_table(table, ttl=60)
    assert await storage.load_table(table.chat_id, None) is None


async def test_a_match_out_of_step_with_its_deal_is_refused(storage: RedisStorage) -> None:
    table = _playing(4, 5)
    assert table.match is not None
    table.match.dealer = (table.match.dealer + 1) % 4
    with pytest.raises(InvariantViolation, match="the match is at deal"):
        await storage.save_table(table, ttl=60)


def test_the_deep_scan_recounts_the_match_from_its_deals() -> None:
    table = _playing(5, 40)
    assert table.match is not None and table.match.deals
    assert table_problems(table, deep=True) == []
    table.match.penalty = (table.match.penalty[0] + 2, table.match.penalty[1])
    assert table_problems(table) == [], "the quick check on save does not replay finished deals"
    assert any(p.startswith("stored penalty") for p in table_problems(table, deep=True))
    table.match.penalty = (table.match.penalty[0] - 2, table.match.penalty[1])
    finished = table.match.deals[0]
    finished["moves"] = finished["moves"][:-1]
    assert any("is not over" in p for p in table_problems(table, deep=True))


def test_a_playing_table_without_a_deal_is_insane() -> None:
    table = _playing(6, 0)
    assert table.match is not None
    table.match.current = None
    problems = table_problems(table)
    assert "a playing table without a deal in play" in problems


def test_a_deal_the_engine_just_built_is_checked_without_replaying_its_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = _playing(3, 12)
    loaded = Table.model_validate_json(table.model_dump_json())  # as read back: nobody vouched for it

    def no_replay(*args: object, **kwargs: object) -> object:
        raise AssertionError("replayed")

    monkeypatch.setattr("bot.storage.invariants.replay_checked", no_replay)
    assert table_problems(table) == []  # the Deal game.apply built is checked
    with pytest.raises(AssertionError, match="replayed"):
        table_problems(loaded)
    assert table.match is not None and table.match.current is not None
    table.match.current["deck"][5] = table.match.current["deck"][6]
    with pytest.raises(AssertionError, match="replayed"):  # changed since: replayed again
        table_problems(table)
