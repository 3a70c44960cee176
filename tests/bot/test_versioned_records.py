"""A table stored before issue 34's rule fixes still loads and plays on as it was dealt: its deal
records have no ``"version"`` (version 1), so a deal in play keeps the old reading to its end, a
finished deal replays as it was scored, and the next deal is dealt under the current reading.
Shown with ``sochi``'s lone player keeping the talon's fourth queen (RULES.md §5: now a redeal)."""

from __future__ import annotations

import random

from bot.engine import Deal, Discard, Match, Phase, Rules, cards
from bot.engine.rules import VERSION
from bot.storage import MatchState, RedisStorage, Seat, Table
from bot.storage.invariants import table_problems
from bot.table import game
from tests.engine.sochi_helpers import random_play, sochi_deck

SOCHI = Rules.make("sochi")
#: Seat 0 is dealt three queens; the talon holds the fourth.
DECK = sochi_deck({0: "QC QS QH 7H"}, talon="QD 7S", dealer=2)
KEEP_FOUR = Discard(tuple(cards("7S 7H")))


def _table(match: MatchState, table_id: str) -> Table:
    seats: list[Seat | None] = [Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate("ABC")]
    return Table(
        table_id=table_id,
        chat_id=-100340,
        creator_id=1,
        rules=SOCHI.to_json(),
        seats=seats,
        status="playing",
        match=match,
    )


def _old_record_at_the_discard() -> dict[str, object]:
    record = Deal(SOCHI, DECK, dealer=2, version=1).record()
    assert "version" not in record  # as every record was written before the fix
    return record


async def test_stored_table_with_a_deal_in_play_from_before_the_fix_loads_and_plays_on_as_dealt(
    storage: RedisStorage,
) -> None:
    match = MatchState(
        first_dealer=2, dealer=2, deal_seq=1, scores=[0, 0, 0], current=_old_record_at_the_discard()
    )
    await storage.save_table(_table(match, "v1a"), ttl=60)
    loaded = await storage.load_table(-100340, None)
    assert loaded is not None and table_problems(loaded, deep=True) == []
    deal = game.deal_of(loaded)
    assert deal is not None and deal.version == 1 and deal.phase is Phase.DISCARD
    # Kept four queens: before the fix the deal went on, and so it does for this deal.
    progress = game.apply(loaded, 0, KEEP_FOUR, random.Random(1))
    assert progress.deal is not None and progress.deal.phase is Phase.PLAY and not progress.finished
    assert loaded.match is not None and loaded.match.current is not None
    assert "version" not in loaded.match.current
    await storage.save_table(loaded, ttl=60)
    again = await storage.load_table(-100340, None)
    assert again is not None and table_problems(again, deep=True) == []
    # Played to its end, the deal is scored; the next one is dealt under the current reading.
    rng = random.Random(2)
    while again.match is not None and again.match.current is not None and len(again.match.deals) < 1:
        built = game.deal_of(again)
        assert built is not None and built.to_act is not None
        game.apply(again, built.to_act, rng.choice(built.legal_actions(built.to_act)), rng)
    assert again.match is not None and "version" not in again.match.deals[0]
    assert again.match.current is None or again.match.current["version"] == VERSION
    await storage.save_table(again, ttl=60)


async def test_stored_table_with_a_finished_deal_from_before_the_fix_replays_it_as_scored(
    storage: RedisStorage,
) -> None:
    old = Deal(SOCHI, DECK, dealer=2, version=1)
    old.apply(0, KEEP_FOUR)
    random_play(old, random.Random(2))
    assert old.result is not None and not old.result.void  # played and scored, four queens and all
    counted = Match(SOCHI, dealer=2)
    counted.add(old.result)
    nxt = counted.new_deal(rng=random.Random(3))
    match = MatchState(
        first_dealer=2,
        dealer=counted.dealer,
        deal_no=counted.deal_no,
        deal_seq=2,
        scores=list(counted.scores),
        penalty=(counted.penalty[0], counted.penalty[1]),
        deals=[old.record()],
        current=nxt.record(),
    )
    await storage.save_table(_table(match, "v1b"), ttl=60)
    loaded = await storage.load_table(-100340, None)
    assert loaded is not None and loaded.match is not None and loaded.match.scores == list(counted.scores)
    # The deep check replays the finished deal and recounts the scores: they agree.
    assert table_problems(loaded, deep=True) == []
    assert game.replay(loaded.match.deals[0]).result == old.result
    assert loaded.match.current is not None and loaded.match.current["version"] == VERSION


async def test_stored_sochi_table_dealt_now_the_discard_keeping_four_queens_redeals(
    storage: RedisStorage,
) -> None:
    record = Deal(SOCHI, DECK, dealer=2).record()
    assert record["version"] == VERSION
    match = MatchState(first_dealer=2, dealer=2, deal_seq=1, scores=[0, 0, 0], current=record)
    table = _table(match, "v2a")
    progress = game.apply(table, 0, KEEP_FOUR, random.Random(1))
    # The deal is void and shown as finished; the same dealer deals deal 1 again.
    assert len(progress.finished) == 1 and progress.deal is not None and not progress.match_over
    assert table.match is not None and table.match.deal_no == 1 and table.match.dealer == 2
    assert table.match.deal_seq == 2 and table.match.scores == [0, 0, 0]
    void = game.replay(table.match.deals[0]).result
    assert void is not None and void.void and void.events == ("redeal",) and void.lone == 0
    await storage.save_table(table, ttl=60)
    loaded = await storage.load_table(-100340, None)
    assert loaded is not None and table_problems(loaded, deep=True) == []
