"""Achievements: each rule on golden match records, and their award once per person for ever."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.engine.record import match_result
from bot.stats.__main__ import rebuild
from bot.stats.achievements import ACHIEVEMENTS, COMEBACK_DEFICIT, earned_in
from bot.stats.counting import finish
from bot.stats.entry import Meta, Player, make_entry, meta_of
from bot.stats.facts import facts_of
from bot.stats.standings import personal_of
from bot.storage import RedisStorage

pytestmark = pytest.mark.cluster
RECORDS = Path(__file__).resolve().parents[1] / "records"
CHAT = -1001
PEOPLE = ("Аня", "Борис", "Вера", "Глеб")
#: Standings keys of the people in seats 0-3 (seats 0 and 2 are pair A).
A0, B1, A2, B3 = "u100", "u101", "u102", "u103"


def _record(name: str, **options: Any) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((RECORDS / f"{name}.json").read_text())
    record["rules"]["options"].update(options)
    return record


def _entry(
    record: dict[str, Any], *, match_id: str = "m1", at: float = 1_796_000_000.0, bots: int = 0
) -> dict[str, Any]:
    seats = [Player(kind="human", name=n, user_id=100 + i) for i, n in enumerate(PEOPLE)]
    for i in range(4 - bots, 4):
        seats[i] = Player(kind="bot", name="bot", level="easy")
    return make_entry(record, Meta(id=match_id, chat_id=CHAT, at=at, seats=seats))


def _earned(name: str, **options: Any) -> dict[str, list[str]]:
    entry = _entry(_record(name, **options))
    meta = meta_of(entry)
    assert meta is not None
    return earned_in(facts_of(entry, meta), meta)


def _who(earned: dict[str, list[str]], achievement: str) -> set[str]:
    return {key for key, ids in earned.items() if achievement in ids}


def test_first_goat_is_earned_by_the_people_of_the_pair_that_lost_the_match() -> None:
    assert match_result(_record("classic_match_goat"))["loser"] == 0
    assert _who(_earned("classic_match_goat"), "first_goat") == {A0, A2}
    assert _who(_earned("classic_match_drivers"), "first_goat") == {B1, B3}  # goats with drivers too


def test_shmon_is_earned_by_who_played_the_top_trump_into_the_trick_that_caught_the_opponents_queen() -> None:
    # classic_match_goat ends with seat 3's ♣6 on pair A's ♣Q.
    record = _record("classic_match_goat")
    last = match_result(record)["deals"][-1]
    assert "queen_caught" in last["events"]
    plays = dict((card, seat) for seat, card in last["tricks"][-1]["plays"])
    assert plays["6C"] == 3 and plays["QC"] % 2 == 0
    assert _who(_earned("classic_match_goat"), "shmon") == {B3}


def test_shestak_is_earned_by_the_pair_that_left_the_opponents_a_deal_with_nothing() -> None:
    # tricks_match_all_nine: pair B takes all nine tricks of deal 3 (in tricks, no trick is the шестак).
    assert _who(_earned("tricks_match_all_nine"), "shestak") == {B1, B3}
    assert _who(_earned("classic_match_goat"), "shestak") == set()  # no deal there ended on 0 points


def test_all_tricks_is_earned_by_the_pair_that_took_every_trick_of_a_deal_played_to_its_end() -> None:
    assert _who(_earned("tricks_match_all_nine"), "all_tricks") == {B1, B3}
    # The last deal of classic_match_goat is cut short by the caught queen after tricks of both pairs,
    # and no deal there went to one pair alone.
    assert _who(_earned("classic_match_goat"), "all_tricks") == set()


def test_eggs_is_earned_by_everyone_at_a_table_where_a_deal_ended_60_60() -> None:
    assert match_result(_record("classic_match_eggs"))["eggs"] == 2
    assert _who(_earned("classic_match_eggs"), "eggs") == {A0, B1, A2, B3}
    assert _who(_earned("classic_match_goat"), "eggs") == set()


def test_clean_win_is_earned_by_the_pair_that_won_without_a_penalty_point() -> None:
    assert match_result(_record("classic_match_clean_win"))["penalty"] == [0, 12]
    assert _who(_earned("classic_match_clean_win"), "clean_win") == {A0, A2}
    assert _who(_earned("classic_match_comeback"), "clean_win") == set()  # the winners had 10


def test_comeback_is_earned_by_the_pair_that_won_after_trailing_by_ten_penalty_points() -> None:
    totals = [d["totals"] for d in match_result(_record("classic_match_comeback"))["deals"]]
    assert [10, 0] in totals and totals[-1] == [10, 12] and COMEBACK_DEFICIT == 10
    assert _who(_earned("classic_match_comeback"), "comeback") == {A0, A2}
    # Never more than 4 behind before winning: no comeback.
    assert _who(_earned("classic_match_drivers"), "comeback") == set()


def test_under_score_winners_a_pair_is_behind_when_it_has_scored_less() -> None:
    # The same deals with the deal's winners scoring: pair A's 0:10 becomes its deficit, and its 12
    # wins; in the clean win, pair B never scored.
    result = match_result(_record("classic_match_comeback", score_winners=True))
    assert result["loser"] == 1 and [0, 10] in [d["totals"] for d in result["deals"]]
    assert _who(_earned("classic_match_comeback", score_winners=True), "comeback") == {A0, A2}
    assert _who(_earned("classic_match_clean_win", score_winners=True), "clean_win") == {A0, A2}


def test_drivers_is_earned_by_the_pair_that_made_the_opponents_goats_with_drivers() -> None:
    result = match_result(_record("classic_match_drivers"))
    assert result["title"] == "goat_with_drivers" and result["penalty"] == [4, 14]
    assert _who(_earned("classic_match_drivers"), "drivers") == {A0, A2}
    assert _who(_earned("classic_match_goat"), "drivers") == set()


def test_bot_players_and_stopped_matches_earn_nothing() -> None:
    entry = _entry(_record("classic_match_eggs"), bots=2)
    meta = meta_of(entry)
    assert meta is not None
    assert set(earned_in(facts_of(entry, meta), meta)) == {A0, B1}
    stopped = meta.model_copy(update={"finished": False})
    assert earned_in(facts_of(entry, stopped), stopped) == {}


async def test_an_achievement_is_earned_once_for_ever_and_a_finish_handled_twice_earns_nothing(
    storage: RedisStorage,
) -> None:
    first = _entry(_record("classic_match_goat"), match_id="m1", at=1_796_000_000.0)
    done = await finish(storage, first)
    assert done.new and {(e.player.key, e.achievement) for e in done.earned} == {
        (A0, "first_goat"), (A2, "first_goat"), (B3, "shmon"),
    }  # fmt: skip
    again = await finish(storage, first)  # a restart, or a second process, handles it again
    assert not again.new and again.earned == []
    # Another match with the same feats earns only what is new (the eggs), dated by that match.
    later = await finish(storage, _entry(_record("classic_match_eggs"), match_id="m2", at=1_797_000_000.0))
    assert match_result(_record("classic_match_eggs"))["loser"] == 0  # Аня and Вера the goats again
    assert {(e.player.key, e.achievement) for e in later.earned} == {(k, "eggs") for k in (A0, B1, A2, B3)}
    anya = personal_of(await storage.personal(100))
    assert anya.earned == {"first_goat": 1_796_000_000.0, "eggs": 1_797_000_000.0}
    assert set(anya.earned) <= set(ACHIEVEMENTS)


async def test_the_rebuild_awards_them_again_with_their_dates(storage: RedisStorage) -> None:
    await finish(storage, _entry(_record("classic_match_goat"), match_id="m1", at=1_796_000_000.0))
    await finish(storage, _entry(_record("classic_match_eggs"), match_id="m2", at=1_797_000_000.0))
    before = {u: personal_of(await storage.personal(u)).earned for u in (100, 101, 102, 103)}
    await storage.clear_stats()
    assert personal_of(await storage.personal(100)).earned == {}
    assert await rebuild(storage) == (1, 2)
    assert {u: personal_of(await storage.personal(u)).earned for u in (100, 101, 102, 103)} == before
